/** Reading screens: finding them (paged, capped), what one plays now and why, its coming hours. */
import { z } from 'zod';
import { documents as d, type PylonClient, type Result } from '@pylon/client';
import { defineTool, refuse } from '../tool.js';

/** The most screens one find_screens page answers: an agent pages on, it never gets a fleet at once. */
export const MAX_PAGE = 50;
/** The most screens one write tool acts on. */
export const MAX_SCREENS_PER_CALL = 50;

export const screenIds = z
  .array(z.string().min(1).max(200))
  .min(1)
  .max(MAX_SCREENS_PER_CALL)
  .describe(`Screen (device) ids, as find_screens answers them; at most ${MAX_SCREENS_PER_CALL}.`);

const screen = z.object({
  id: z.string(),
  name: z.string(),
  online: z.boolean(),
  tags: z.array(z.string()),
  groupId: z.string().nullable(),
  groupName: z.string().nullable(),
  timezone: z.string().nullable(),
  lastPing: z.string().nullable().describe('ISO 8601 time of the last ping; null: never pinged.'),
});

/**
 * The caller's screens among `ids`, or NOT_FOUND naming the others: an id of another account is
 * as unknown as a made-up one (the API answers only the caller's devices), and nothing is written
 * for a list with one such id.
 */
export async function ownScreens(client: PylonClient, ids: string[]): Promise<Result<{ id: string; name: string }[]>> {
  const unique = [...new Set(ids)];
  const found = await client.graphql(d.ScreensByIdDocument, { id: unique });
  if (!found.ok) return found;
  const known = new Set((found.value.device ?? []).map((s) => s.id));
  const missing = unique.filter((id) => !known.has(id));
  if (missing.length) return refuse('NOT_FOUND', `no screen with id ${missing.join(', ')} in your account; nothing was changed`);
  return { ok: true, value: found.value.device ?? [] };
}

export const findScreens = defineTool({
  name: 'find_screens',
  title: 'Find screens',
  kind: 'read',
  description: `Lists the screens (devices) of your account that match every filter given, by name, ${MAX_PAGE} at most per call.
Filters: nameContains (case-insensitive part of the name), tags (screens with any of them), groupId, online (true: pinging now).
Answers the screens of one page, the total matching, and nextCursor: pass it back as cursor for the next page (null on the last).
Use it to turn what a person says ("the lobby screen") into screen ids for the other tools.`,
  input: {
    nameContains: z.string().min(1).max(200).optional().describe('Part of the screen name, case-insensitive.'),
    tags: z.array(z.string().min(1).max(100)).max(20).optional().describe('Screens carrying any of these tags.'),
    groupId: z.string().min(1).max(200).optional().describe('Only screens of this device group.'),
    online: z.boolean().optional().describe('true: only screens online now; false: only offline ones.'),
    pageSize: z.number().int().min(1).max(MAX_PAGE).optional().describe(`Screens per page, default 20, at most ${MAX_PAGE}.`),
    cursor: z
      .string()
      .regex(/^\d{1,7}$/)
      .optional()
      .describe('nextCursor of the previous page.'),
  },
  output: {
    screens: z.array(screen),
    total: z.number().int().describe('Screens matching the filters, on every page.'),
    nextCursor: z.string().nullable(),
  },
  async run(client, i) {
    const limit = i.pageSize ?? 20;
    const offset = Number(i.cursor ?? 0);
    const where = {
      ...(i.nameContains ? { name: { contains: i.nameContains } } : {}),
      ...(i.online !== undefined ? { isOnline: { eq: i.online } } : {}),
    };
    const r = await client.graphql(d.FindScreensDocument, {
      where: Object.keys(where).length ? where : null,
      groupId: i.groupId ? [i.groupId] : null,
      tag: i.tags?.length ? i.tags : null,
      limit,
      offset,
    });
    if (!r.ok) return r;
    const screens = (r.value.device ?? []).map((s) => ({
      id: s.id,
      name: s.name,
      online: s.isOnline,
      tags: s.tags,
      groupId: s.groupId ?? null,
      groupName: s.groupName ?? null,
      timezone: s.timezone ?? null,
      lastPing: s.pingData?.timestamp ?? null,
    }));
    const total = r.value.deviceCount;
    return { ok: true, value: { screens, total, nextCursor: offset + screens.length < total && screens.length ? String(offset + screens.length) : null } };
  },
});

const ref = z.object({ id: z.string(), name: z.string() });

export const explainScreen = defineTool({
  name: 'explain_screen',
  title: 'Explain what a screen plays',
  kind: 'read',
  description: `Says what one screen shows at an instant (default now) and why: the winning schedule and its playlist or template,
and every schedule of the screen with its verdict (PLAYING, OUTRANKED, CONTENT_MISSING, NOT_STARTED, ENDED, WRONG_WEEKDAY, OUTSIDE_HOURS) and a reason in words,
read in the screen's time zone, plus when the answer next changes. Use it for "why is this screen showing X" before changing anything.`,
  input: {
    screenId: z.string().min(1).max(200).describe('The screen (device) id.'),
    at: z.string().datetime({ offset: true }).optional().describe('ISO 8601 instant to ask about; default now.'),
  },
  output: {
    screen: ref,
    at: z.string(),
    timezone: z.string(),
    localTime: z.string(),
    schedule: ref.nullable().describe('The winning schedule; null: nothing plays.'),
    content: z.object({ type: z.string(), playlist: ref.nullable(), template: ref.nullable() }).nullable(),
    considered: z.array(
      z.object({
        schedule: ref,
        matched: z.boolean(),
        verdict: z.string(),
        reason: z.string(),
        windowStart: z.string().nullable(),
        windowEnd: z.string().nullable(),
      }),
    ),
    nextChange: z.string().nullable(),
  },
  async run(client, i) {
    const r = await client.graphql(d.ExplainScreenDocument, { deviceId: i.screenId, at: i.at ?? null });
    if (!r.ok) return r;
    const n = r.value.nowPlaying;
    if (!n) return refuse('NOT_FOUND', `no screen with id ${i.screenId} in your account`);
    const { device, ...rest } = n;
    return { ok: true, value: { screen: device, ...rest } };
  },
});

export const TIMELINE_MAX_HOURS = 168;

export const screenTimeline = defineTool({
  name: 'screen_timeline',
  title: "A screen's coming hours",
  kind: 'read',
  description: `What one screen will play over the next hours (default 24, at most ${TIMELINE_MAX_HOURS}) from an instant (default now):
consecutive stretches, each with its winning schedule (null: nothing plays). Use it to check a schedule change before or after making it.`,
  input: {
    screenId: z.string().min(1).max(200).describe('The screen (device) id.'),
    from: z.string().datetime({ offset: true }).optional().describe('ISO 8601 start; default now.'),
    hours: z.number().int().min(1).max(TIMELINE_MAX_HOURS).optional().describe('How many hours, default 24.'),
  },
  output: {
    screen: ref,
    timezone: z.string(),
    segments: z.array(z.object({ from: z.string(), to: z.string(), schedule: ref.nullable() })),
  },
  async run(client, i) {
    const from = i.from ? new Date(i.from) : new Date();
    const to = new Date(from.getTime() + (i.hours ?? 24) * 3_600_000);
    const r = await client.graphql(d.ScreenTimelineDocument, { deviceId: i.screenId, from: from.toISOString(), to: to.toISOString() });
    if (!r.ok) return r;
    const t = r.value.deviceTimeline;
    if (!t) return refuse('NOT_FOUND', `no screen with id ${i.screenId} in your account`);
    return { ok: true, value: { screen: t.device, timezone: t.timezone, segments: t.segments } };
  },
});
