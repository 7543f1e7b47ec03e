/**
 * Emergency override: an operator takes over screens with one piece of content for a time box or
 * until cancelled. It wins over every schedule and priority.
 *
 *   start ──> SCHEDULED (startsAt ahead) ──> ACTIVE ──> ENDED (endsAt passed)
 *                    └──────────cancel────────┴──────> CANCELLED
 *
 * Invariants:
 * - The targets (all screens, tags, groups with their subgroups, device ids, a radius) are resolved
 *   to device ids once, when it starts: the per-screen states the operator reads are over that fixed
 *   list, and a device tagged afterwards does not join a running emergency unannounced.
 * - The state is derived from the stored instants and the clock (`stateAt`), so a process that was
 *   down when the time box ran out still answers ENDED; `open` only says whether the end was
 *   already announced (override.ended) and indexes the overrides still worth reading on a ping.
 * - Per screen: PENDING until it acknowledges showing, SHOWING, ENDED once it acknowledges the stop;
 *   UNREACHABLE when it never showed it and is offline now or the override is over.
 * - Several overrides on one screen: the one started last wins (then the one created last).
 */
import { z } from 'zod';
import { AppError, parseInput } from '@pylon/kit';

/** Devices one override may reach (its resolved target list). */
export const MAX_OVERRIDE_DEVICES = 10_000;
/** Longest message text. */
export const MAX_MESSAGE_CHARS = 2_000;

export type OverrideContent =
  { type: 'MEDIA'; mediaId: string } | { type: 'PLAYLIST'; playlistId: string } | { type: 'MESSAGE'; text: string; textColor: string; backgroundColor: string };

export interface OverrideRadius {
  latitude: number;
  longitude: number;
  radiusKm: number;
}

/** What the operator aimed at (kept as given, for display); `deviceIds` of the record is the resolution. */
export interface OverrideTarget {
  all: boolean;
  tags: string[];
  groupIds: string[];
  deviceIds: string[];
  radius: OverrideRadius | null;
}

export interface OverrideRecord {
  name: string;
  content: OverrideContent;
  target: OverrideTarget;
  /** The target resolved to the account's devices when it started. */
  deviceIds: string[];
  startsAt: string;
  /** Null: until cancelled. */
  endsAt: string | null;
  cancelledAt: string | null;
  /** False once its end (time box or cancel) was announced. */
  open: boolean;
  /** Whether override.started was announced (at once, or when a future start came). */
  startAnnounced: boolean;
  /** Who started it (user name; `cap:<feed>` for an alert feed). */
  startedBy: string;
}

export type OverrideState = 'SCHEDULED' | 'ACTIVE' | 'ENDED' | 'CANCELLED';
export type ScreenState = 'PENDING' | 'SHOWING' | 'ENDED' | 'UNREACHABLE';

/** One screen's acknowledgements (stored per override and device). */
export interface OverrideScreenRecord {
  overrideId: string;
  deviceId: string;
  shownAt: string | null;
  stoppedAt: string | null;
}

export function stateAt(o: Pick<OverrideRecord, 'startsAt' | 'endsAt' | 'cancelledAt'>, now: number): OverrideState {
  if (o.cancelledAt) return 'CANCELLED';
  if (o.endsAt && Date.parse(o.endsAt) <= now) return 'ENDED';
  if (Date.parse(o.startsAt) > now) return 'SCHEDULED';
  return 'ACTIVE';
}

/** Whether it is still to show or showing (a screen should hold it). */
export const isLive = (o: Pick<OverrideRecord, 'startsAt' | 'endsAt' | 'cancelledAt'>, now: number): boolean => {
  const s = stateAt(o, now);
  return s === 'ACTIVE' || s === 'SCHEDULED';
};

export function screenState(
  o: Pick<OverrideRecord, 'startsAt' | 'endsAt' | 'cancelledAt'>,
  ack: OverrideScreenRecord | undefined,
  online: boolean,
  now: number,
): ScreenState {
  if (ack?.stoppedAt) return 'ENDED';
  if (ack?.shownAt) return 'SHOWING';
  return online && isLive(o, now) ? 'PENDING' : 'UNREACHABLE';
}

/** The override a screen shows among those naming it: the one started last (then created last). */
export function winningOverride<O extends Pick<OverrideRecord, 'startsAt' | 'endsAt' | 'cancelledAt'> & { createdAt: string }>(
  overrides: readonly O[],
  now: number,
): O | null {
  let best: O | null = null;
  for (const o of overrides) {
    if (stateAt(o, now) !== 'ACTIVE') continue;
    if (!best || o.startsAt > best.startsAt || (o.startsAt === best.startsAt && o.createdAt > best.createdAt)) best = o;
  }
  return best;
}

/** What a device is, for target matching. */
export interface FleetDevice {
  id: string;
  tags: readonly string[];
  groupId: string | null;
  latitude: number | null;
  longitude: number | null;
}

const EARTH_RADIUS_KM = 6371.0088;

/** Great-circle distance (haversine), km. */
export function distanceKm(aLat: number, aLng: number, bLat: number, bLng: number): number {
  const rad = Math.PI / 180;
  const dLat = (bLat - aLat) * rad;
  const dLng = (bLng - aLng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(aLat * rad) * Math.cos(bLat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The groups given and every group below them (the tree as id -> parent id). */
export function withSubgroups(groupIds: readonly string[], parents: ReadonlyMap<string, string | null>): Set<string> {
  const out = new Set(groupIds);
  for (const id of parents.keys()) {
    // Walk up at most the tree's size (a cycle in stored data must not hang the start).
    let cur: string | null | undefined = id;
    for (let hops = 0; cur && hops <= parents.size; hops++, cur = parents.get(cur)) {
      if (out.has(cur)) {
        out.add(id);
        break;
      }
    }
  }
  return out;
}

/** The fleet's devices a target reaches: any of its criteria (a union), in fleet order. */
export function resolveTarget(target: OverrideTarget, fleet: readonly FleetDevice[], parents: ReadonlyMap<string, string | null>): string[] {
  if (target.all) return fleet.map((d) => d.id);
  const tags = new Set(target.tags);
  const groups = withSubgroups(target.groupIds, parents);
  const ids = new Set(target.deviceIds);
  const r = target.radius;
  return fleet
    .filter(
      (d) =>
        ids.has(d.id) ||
        d.tags.some((t) => tags.has(t)) ||
        (d.groupId !== null && groups.has(d.groupId)) ||
        (r !== null && d.latitude !== null && d.longitude !== null && distanceKm(r.latitude, r.longitude, d.latitude, d.longitude) <= r.radiusKm),
    )
    .map((d) => d.id);
}

const idField = z.string().trim().min(1).max(200);
const COLOR_RE = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const color = z.string().regex(COLOR_RE, { message: 'must be a colour #rgb or #rrggbb' });
const instant = z
  .string()
  .max(40)
  .refine((v) => /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v)), { message: 'must be an ISO 8601 date-time, e.g. 2026-03-29T01:30:00Z' });

export const overrideInputSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    content: z
      .object({
        type: z.enum(['MEDIA', 'PLAYLIST', 'MESSAGE']),
        mediaId: idField.nullable().optional(),
        playlistId: idField.nullable().optional(),
        text: z.string().trim().min(1).max(MAX_MESSAGE_CHARS).nullable().optional(),
        textColor: color.nullable().optional(),
        backgroundColor: color.nullable().optional(),
      })
      .strict(),
    target: z
      .object({
        all: z.boolean().nullable().optional(),
        tags: z.array(z.string().trim().min(1).max(100)).max(50).nullable().optional(),
        groupIds: z.array(idField).max(100).nullable().optional(),
        deviceIds: z.array(idField).max(MAX_OVERRIDE_DEVICES).nullable().optional(),
        radius: z
          .object({ latitude: z.number().min(-90).max(90), longitude: z.number().min(-180).max(180), radiusKm: z.number().positive().max(20_000) })
          .strict()
          .nullable()
          .optional(),
      })
      .strict(),
    startsAt: instant.nullable().optional(),
    endsAt: instant.nullable().optional(),
  })
  .strict();

export type OverrideInput = z.infer<typeof overrideInputSchema>;

/** A parsed target input as stored: absent lists empty, duplicates dropped. */
export const targetOf = (t: OverrideInput['target']): OverrideTarget => ({
  all: t.all === true,
  tags: [...new Set(t.tags ?? [])],
  groupIds: [...new Set(t.groupIds ?? [])],
  deviceIds: [...new Set(t.deviceIds ?? [])],
  radius: t.radius ?? null,
});

/** Whether a target names any screen (all, tags, groups, devices or a radius). */
export const names = (t: OverrideTarget): boolean => t.all || t.tags.length > 0 || t.groupIds.length > 0 || t.deviceIds.length > 0 || t.radius !== null;

const isoOf = (t: number) => `${new Date(t).toISOString().slice(0, 19)}Z`;

/** Input -> content, target and time box, with every rule that needs no other service; each refusal names its field. */
export function overrideFromInput(input: unknown, now: number): Pick<OverrideRecord, 'name' | 'content' | 'target' | 'startsAt' | 'endsAt'> {
  const i = parseInput(overrideInputSchema, input);
  const c = i.content;
  const need = (v: string | null | undefined, field: string): string => {
    if (!v) throw new AppError('BAD_USER_INPUT', `content.${field} is required for ${c.type} content`, { field: `content.${field}` });
    return v;
  };
  const content: OverrideContent =
    c.type === 'MEDIA'
      ? { type: 'MEDIA', mediaId: need(c.mediaId, 'mediaId') }
      : c.type === 'PLAYLIST'
        ? { type: 'PLAYLIST', playlistId: need(c.playlistId, 'playlistId') }
        : { type: 'MESSAGE', text: need(c.text, 'text'), textColor: c.textColor ?? '#ffffff', backgroundColor: c.backgroundColor ?? '#b00020' };
  const target = targetOf(i.target);
  if (!names(target)) {
    throw new AppError('BAD_USER_INPUT', 'target must name all screens, tags, groups, devices or a radius', { field: 'target' });
  }
  const starts = i.startsAt ? Date.parse(i.startsAt) : now;
  const ends = i.endsAt ? Date.parse(i.endsAt) : null;
  if (ends !== null && ends <= Math.max(starts, now))
    throw new AppError('BAD_USER_INPUT', 'endsAt must be after startsAt and in the future', { field: 'endsAt' });
  return { name: i.name, content, target, startsAt: isoOf(starts), endsAt: ends === null ? null : isoOf(ends) };
}
