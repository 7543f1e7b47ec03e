/**
 * CAP feeds of an account: create, change, delete, read with the alerts each one read. Every id
 * of a feed's target (groups, devices) is checked to be the caller's; each refusal names its field.
 * A feed acts with the policies of whoever created or last changed it (as a job does), so it can
 * never do more than that user could.
 */
import { z } from 'zod';
import { AppError, isoSeconds, parseInput, parseOutboundUrl, type Principal } from '@pylon/kit';
import { CAP_SEVERITIES, type CapFeedRecord } from '../../domain/cap.js';
import { names, overrideInputSchema, targetOf, type OverrideTarget } from '../../domain/override.js';
import type { SchedulingRuntime } from '../../runtime.js';
import type { CapAlertSeen, CapFeed } from './cap-feed.repository.js';

/** Feeds one account may configure. */
export const MAX_CAP_FEEDS = 20;
export const MIN_POLL_SECONDS = 15;

const fields = {
  name: z.string().trim().min(1).max(200),
  url: z.string().trim().min(1).max(2048),
  enabled: z.boolean().nullable().optional(),
  severities: z.array(z.enum(CAP_SEVERITIES)).min(1).max(5).nullable().optional(),
  events: z.array(z.string().trim().min(1).max(200)).max(50).nullable().optional(),
  target: overrideInputSchema.shape.target.nullable().optional(),
  pollSeconds: z.number().int().min(MIN_POLL_SECONDS).max(3600).nullable().optional(),
  defaultDurationMinutes: z.number().int().min(1).max(1440).nullable().optional(),
};
const createSchema = z.object(fields).strict();
const updateSchema = z.object({ ...fields, name: fields.name.optional(), url: fields.url.optional() }).strict();

type TargetInput = z.infer<typeof fields.target>;

/** The target as stored (null: every screen), its ids checked against the caller's fleet. */
async function checkedTarget(rt: SchedulingRuntime, caller: Principal, t: TargetInput): Promise<OverrideTarget | null> {
  if (!t) return null;
  const target = targetOf(t);
  if (target.all || !names(target)) return null;
  const fleet = await rt.devices.fleet(caller);
  const known = new Set(fleet.devices.map((d) => d.id));
  const missing = target.deviceIds.find((id) => !known.has(id));
  if (missing !== undefined) throw new AppError('BAD_USER_INPUT', `device '${missing.slice(0, 100)}' was not found`, { field: 'target.deviceIds' });
  const badGroup = target.groupIds.find((g) => !fleet.groups.has(g));
  if (badGroup !== undefined) throw new AppError('BAD_USER_INPUT', `device group '${badGroup.slice(0, 100)}' was not found`, { field: 'target.groupIds' });
  return target;
}

/** The feed's URL checked as the poller will use it (kit's outbound rules: http(s), no credentials, bounded). */
const checkedUrl = (url: string): string => parseOutboundUrl(url, 'url').toString();

const actorOf = (p: Principal): CapFeedRecord['actor'] => ({
  userId: p.userId,
  userName: p.userName,
  roles: [...p.roles],
  policies: [...p.policies],
  isOwner: p.isOwner,
});

export async function createCapFeed(rt: SchedulingRuntime, caller: Principal, input: unknown): Promise<CapFeed> {
  const i = parseInput(createSchema, input);
  if ((await rt.capFeeds.count(caller.accountId)) >= MAX_CAP_FEEDS)
    throw new AppError('UNPROCESSABLE', `an account may have at most ${MAX_CAP_FEEDS} CAP feeds`, { field: 'input' });
  return rt.capFeeds.add(caller.accountId, {
    name: i.name,
    url: checkedUrl(i.url),
    enabled: i.enabled ?? true,
    severities: [...new Set(i.severities ?? ['Extreme', 'Severe'])],
    events: [...new Set(i.events ?? [])],
    target: await checkedTarget(rt, caller, i.target),
    pollSeconds: i.pollSeconds ?? 60,
    defaultDurationMinutes: i.defaultDurationMinutes ?? 60,
    actor: actorOf(caller),
    lastPolledAt: null,
    lastError: null,
    // Due at once: the first poll shows the operator whether the feed reads.
    nextPollAt: new Date(rt.now()).toISOString(),
  });
}

export async function updateCapFeed(rt: SchedulingRuntime, caller: Principal, id: string, input: unknown): Promise<CapFeed> {
  await rt.capFeeds.get(caller.accountId, id);
  const i = parseInput(updateSchema, input);
  const changes: Partial<CapFeedRecord> = { actor: actorOf(caller) };
  if (i.name !== undefined) changes.name = i.name;
  if (i.url !== undefined) changes.url = checkedUrl(i.url);
  if (i.enabled != null) changes.enabled = i.enabled;
  if (i.severities) changes.severities = [...new Set(i.severities)];
  if (i.events) changes.events = [...new Set(i.events)];
  if (i.target !== undefined) changes.target = await checkedTarget(rt, caller, i.target);
  if (i.pollSeconds != null) changes.pollSeconds = i.pollSeconds;
  if (i.defaultDurationMinutes != null) changes.defaultDurationMinutes = i.defaultDurationMinutes;
  return rt.capFeeds.change(caller.accountId, id, changes);
}

export async function deleteCapFeed(rt: SchedulingRuntime, caller: Principal, id: string): Promise<void> {
  if (!(await rt.capFeeds.remove(caller.accountId, id))) throw new AppError('NOT_FOUND', 'CAP feed was not found', { field: 'id' });
}

export async function listCapFeeds(rt: SchedulingRuntime, caller: Principal): Promise<CapFeed[]> {
  return rt.capFeeds.list(caller.accountId, MAX_CAP_FEEDS);
}

/** The feed as the CapFeed type reads it. */
export function capFeedOut(f: CapFeed) {
  return {
    id: f.id,
    name: f.name,
    url: f.url,
    enabled: f.enabled,
    severities: f.severities,
    events: f.events,
    target: f.target,
    pollSeconds: f.pollSeconds,
    defaultDurationMinutes: f.defaultDurationMinutes,
    configuredBy: f.actor.userName,
    lastPolledAt: isoSeconds(f.lastPolledAt),
    lastError: f.lastError,
    createdOn: isoSeconds(f.createdAt),
  };
}

export type CapFeedOut = ReturnType<typeof capFeedOut>;

/** An alert a feed read, as the CapAlert type reads it (its override resolved by id). */
export const alertOut = (a: CapAlertSeen) => ({
  identifier: a.identifier,
  sender: a.sender,
  sent: isoSeconds(a.sent) ?? a.sent,
  msgType: a.msgType,
  event: a.event,
  severity: a.severity,
  headline: a.headline,
  outcome: a.outcome,
  detail: a.detail,
  overrideId: a.overrideId,
  receivedAt: isoSeconds(a.receivedAt)!,
});

export type CapAlertOut = ReturnType<typeof alertOut>;
