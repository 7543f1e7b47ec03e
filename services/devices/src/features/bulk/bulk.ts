/**
 * Fleet-wide bulk: one change (tags added or removed, a group move, commands, a schedule assigned
 * or unassigned) over every device a selector matches, run as a job (kit jobs.ts).
 *
 *   start ──> dry run: count + sample, nothing changed, no job
 *        └──> job queued ──> resolve: the targets stored in chunks, pending (ids not found: failed)
 *                             └──> chunk after chunk of BULK_CHUNK: apply, outcomes ok | failed (reason)
 *                                  └──> succeeded (result: counts) | cancelled (the rest stay pending)
 *
 * Invariants: targets are devices of the caller's account only (another account's id is reported
 * as not found, never touched); a device is changed at most once per job, except that a restart
 * redoes the chunk it cut short, and for commands that chunk is failed instead ("a repeated reboot
 * is worse than a lost one", domain/command.ts); the stored chunks double as the resume point, so a
 * job survives a restart of its process.
 */
import { z } from 'zod';
import { AppError, parseInput, type Requirement } from '@pylon/kit';
import { tagsSchema } from '../../domain/device-input.js';

/** Devices written per store round trip (one read, one updateMany, one chunk of results, two progress saves). */
export const BULK_CHUNK = 1000;
/** Most devices one job may target (a larger fleet: several jobs, by tag or group). */
export const MAX_BULK_TARGETS = 100_000;
/** Most ids in a selector's list; the request body limit (1 MB: about 25,000 UUIDs) is reached first over HTTP. */
export const MAX_SELECTOR_IDS = MAX_BULK_TARGETS;
/** Devices a dry run shows. */
export const DRY_RUN_SAMPLE = 10;
/** Tags one device may hold (the device input's own limit). */
export const MAX_DEVICE_TAGS = 50;

export const BULK_ACTIONS = ['add_tags', 'remove_tags', 'move_to_group', 'send_commands', 'assign_schedule', 'unassign_schedule'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** The job kinds: schedule work is its own kind, so reading and cancelling it asks the scheduling policies. */
export const BULK_KIND = 'devices.bulk';
export const BULK_SCHEDULE_KIND = 'devices.bulk-schedule';

/** What each action requires, checked per kind (the mutation itself asks Devices_View, to select devices at all). */
export function bulkAccess(action: BulkAction): { kind: string; edit: Requirement; view: Requirement } {
  return action === 'assign_schedule' || action === 'unassign_schedule'
    ? { kind: BULK_SCHEDULE_KIND, edit: ['Devices_View', 'Schedules_Edit'], view: ['Devices_View', 'Schedules_View'] }
    : { kind: BULK_KIND, edit: ['Devices_View', 'Devices_Edit'], view: 'Devices_View' };
}

const idText = z.string().trim().min(1).max(200);

const selectorSchema = z
  .object({
    all: z.boolean().nullable().optional(),
    ids: z.array(idText).max(MAX_SELECTOR_IDS).nullable().optional(),
    tags: z.array(idText).max(100).nullable().optional(),
    groupIds: z.array(idText).max(100).nullable().optional(),
    where: z.unknown().optional(),
  })
  .strict();

export interface BulkSelector {
  all: boolean;
  /** Distinct, in the order given; null when the selector names no list. */
  ids: string[] | null;
  tags: string[] | null;
  groupIds: string[] | null;
  where: unknown;
}

export interface BulkInput {
  selector: BulkSelector;
  action: BulkAction;
  tags: string[];
  groupId: string | null;
  commands: { command: string; arg?: string | null }[];
  scheduleId: string | null;
}

const inputSchema = z.object({
  selector: selectorSchema,
  action: z.string().transform((a, ctx) => {
    const lower = a.toLowerCase() as BulkAction;
    if (!BULK_ACTIONS.includes(lower)) {
      ctx.addIssue({ code: 'custom', message: `action must be one of ${BULK_ACTIONS.map((x) => x.toUpperCase()).join(', ')}` });
      return z.NEVER;
    }
    return lower;
  }),
  tags: tagsSchema.nullable().optional(),
  groupId: idText.nullable().optional(),
  commands: z
    .array(z.object({ command: z.string(), arg: z.string().nullable().optional() }))
    .nullable()
    .optional(),
  scheduleId: idText.nullable().optional(),
  dryRun: z.boolean().nullable().optional(),
});

const bad = (field: string, message: string) => new AppError('BAD_USER_INPUT', message, { field });

/** The input checked as a whole: a selector that selects something, and what its action needs. */
export function parseBulkInput(raw: unknown): BulkInput & { dryRun: boolean } {
  const i = parseInput(inputSchema, raw);
  const s = i.selector;
  const selector: BulkSelector = {
    all: s.all === true,
    ids: s.ids ? [...new Set(s.ids)] : null,
    tags: s.tags?.length ? s.tags : null,
    groupIds: s.groupIds?.length ? s.groupIds : null,
    where: s.where ?? null,
  };
  const narrows = selector.ids !== null || selector.tags !== null || selector.groupIds !== null || (selector.where !== null && selector.where !== undefined);
  if (!selector.all && !narrows) throw bad('selector', 'the selector must name devices: ids, tags, groupIds, where, or all: true');
  if (selector.all && narrows) throw bad('selector.all', 'all: true selects every device; leave out ids, tags, groupIds and where, or drop all');
  if (selector.ids !== null && selector.ids.length === 0) throw bad('selector.ids', 'selector.ids must name at least one device');
  const action = i.action;
  const tags = i.tags ?? [];
  if ((action === 'add_tags' || action === 'remove_tags') && tags.length === 0) throw bad('tags', `${action.toUpperCase()} needs tags (1 to 50)`);
  if (action === 'move_to_group' && i.groupId === undefined) throw bad('groupId', 'MOVE_TO_GROUP needs groupId (null: out of every group)');
  const commands = i.commands ?? [];
  if (action === 'send_commands' && commands.length === 0) throw bad('commands', 'SEND_COMMANDS needs commands');
  if ((action === 'assign_schedule' || action === 'unassign_schedule') && !i.scheduleId) throw bad('scheduleId', `${action.toUpperCase()} needs scheduleId`);
  return { selector, action, tags, groupId: i.groupId ?? null, commands, scheduleId: i.scheduleId ?? null, dryRun: i.dryRun === true };
}

/** A device's tags after the action (null: unchanged); refuses more than a device may hold. */
export function editedTags(current: readonly string[], action: 'add_tags' | 'remove_tags', tags: readonly string[]): string[] | null {
  if (action === 'remove_tags') {
    const drop = new Set(tags);
    const kept = current.filter((t) => !drop.has(t));
    return kept.length === current.length ? null : kept;
  }
  const have = new Set(current);
  const added = tags.filter((t) => !have.has(t));
  if (added.length === 0) return null;
  if (current.length + added.length > MAX_DEVICE_TAGS)
    throw new AppError('UNPROCESSABLE', `the device would hold ${current.length + added.length} tags (at most ${MAX_DEVICE_TAGS})`, { field: 'tags' });
  return [...current, ...added];
}
