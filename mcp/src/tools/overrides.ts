/**
 * Emergency overrides (docs/fleet-operations.md): start and cancel take over or release screens,
 * so both are destructive (they name the screens first and act only with confirm: true); listing
 * is read-only, capped, and answers counts per state rather than every screen.
 */
import { z } from 'zod';
import { documents as d, payload, type PylonClient, type Result } from '@pylon/client';
import { confirmArg, defineTool, needsConfirm, refuse } from '../tool.js';
import { ownScreens, MAX_SCREENS_PER_CALL } from './screens.js';

/** Screens named in a scope message or an answer; the counts cover the rest. */
const NAMED = 20;
/** The most overrides one list_overrides call answers. */
export const MAX_OVERRIDES = 20;
/** Tagged screens resolved for the scope (the device query's own maximum). */
const RESOLVE_LIMIT = 1000;

const ref = z.object({ id: z.string(), name: z.string() });
const counts = z.object({ pending: z.number().int(), showing: z.number().int(), ended: z.number().int(), unreachable: z.number().int() });
const override = z.object({
  id: z.string(),
  name: z.string(),
  state: z.string().describe('SCHEDULED (start ahead), ACTIVE, ENDED (time box ran out) or CANCELLED.'),
  content: z.object({ type: z.string(), media: ref.nullable(), playlist: ref.nullable(), text: z.string().nullable() }),
  startsAt: z.string(),
  endsAt: z.string().nullable().describe('null: until cancelled.'),
  cancelledAt: z.string().nullable(),
  startedBy: z.string(),
  screenTotal: z.number().int().describe('How many screens it targets.'),
  screenCounts: counts.describe('Targeted screens per state: PENDING (not acknowledged yet), SHOWING, ENDED, UNREACHABLE.'),
  screens: z.array(z.object({ id: z.string(), name: z.string(), state: z.string() })).describe(`The first ${NAMED} targeted screens.`),
});

type OverrideView = d.OverrideViewFragment;
const view = (o: OverrideView): z.infer<typeof override> => ({
  id: o.id,
  name: o.name,
  state: String(o.state),
  content: { type: String(o.content.type), media: o.content.media ?? null, playlist: o.content.playlist ?? null, text: o.content.text ?? null },
  startsAt: o.startsAt,
  endsAt: o.endsAt ?? null,
  cancelledAt: o.cancelledAt ?? null,
  startedBy: o.startedBy,
  screenTotal: o.screens.length,
  screenCounts: o.screenCounts,
  screens: o.screens.slice(0, NAMED).map((s) => ({ id: s.device.id, name: s.device.name, state: String(s.state) })),
});

type OverridePayload = Parameters<typeof payload>[0] & { override?: OverrideView | null };
/** The override a start or cancel answered, as the tools show it under `key` (or why the mutation failed). */
function answered<V, K extends string>(
  r: Result<V>,
  key: K,
  field: (v: V) => OverridePayload | null | undefined,
): Result<{ [k in K]: z.infer<typeof override> }> {
  if (!r.ok) return r;
  const p = payload(field(r.value));
  return p.ok ? { ok: true, value: { [key]: view(p.value.override!) } as { [k in K]: z.infer<typeof override> } } : p;
}

const names = (screens: { id: string; name: string }[], total: number) =>
  screens
    .slice(0, NAMED)
    .map((s) => `${s.name} (${s.id})`)
    .join(', ') + (total > NAMED ? ` and ${total - NAMED} more` : '');

/** The screens a target reaches now (the union of its criteria), as the server resolves it at the start. */
async function reach(
  client: PylonClient,
  t: { all?: boolean; tags?: string[]; screenIds?: string[] },
): Promise<Result<{ total: number; screens: { id: string; name: string }[] }>> {
  const byId = t.screenIds?.length ? await ownScreens(client, t.screenIds) : { ok: true as const, value: [] };
  if (!byId.ok) return byId;
  if (!t.all && !t.tags?.length) return { ok: true, value: { total: byId.value.length, screens: byId.value } };
  const r = await client.graphql(d.ScreensByTagDocument, { tag: t.all ? null : t.tags!, limit: RESOLVE_LIMIT });
  if (!r.ok) return r;
  const tagged = r.value.device ?? [];
  const seen = new Set(tagged.map((s) => s.id));
  const extra = byId.value.filter((s) => !seen.has(s.id));
  return { ok: true, value: { total: r.value.deviceCount + extra.length, screens: [...tagged, ...extra] } };
}

export const startOverride = defineTool({
  name: 'start_override',
  title: 'Start an emergency override',
  kind: 'destructive',
  description: `Takes over screens with one piece of content over every schedule and priority (an emergency override): a full-screen
message (text, optional textColor/backgroundColor #rgb or #rrggbb, white on red by default), an uploaded media item (mediaId) or a
playlist (playlistId). Target: screenIds, tags (screens carrying any of them), or all: true (every screen of the account); several
criteria add up. It runs from startsAt (default now) until endsAt or until cancel_override. Without confirm: true it changes nothing
and answers how many screens it would take over and their names; call again with confirm: true to start it. Every screen id must be
one of yours. Answers the started override: its id (for cancel_override), state, and its screens' states. Needs the Overrides_Edit
permission (Owner, Administrator).`,
  input: {
    name: z.string().min(1).max(200).describe('Name shown to operators, e.g. "Evacuate".'),
    text: z.string().min(1).max(2000).optional().describe('A full-screen message (exclusive with mediaId and playlistId).'),
    textColor: z.string().max(7).optional().describe('Message text colour, #rgb or #rrggbb; default #ffffff.'),
    backgroundColor: z.string().max(7).optional().describe('Message background, #rgb or #rrggbb; default #b00020.'),
    mediaId: z.string().min(1).max(200).optional().describe('An uploaded media item to show instead of a message.'),
    playlistId: z.string().min(1).max(200).optional().describe('A playlist to play instead of a message.'),
    screenIds: z
      .array(z.string().min(1).max(200))
      .min(1)
      .max(MAX_SCREENS_PER_CALL)
      .optional()
      .describe(`Screen ids, as find_screens answers them; at most ${MAX_SCREENS_PER_CALL}.`),
    tags: z.array(z.string().min(1).max(100)).min(1).max(20).optional().describe('Screens carrying any of these tags.'),
    all: z.boolean().optional().describe('true: every screen of the account.'),
    startsAt: z.string().max(40).optional().describe('ISO 8601 date-time; default now (a later start is SCHEDULED until then).'),
    endsAt: z.string().max(40).optional().describe('ISO 8601 date-time; default: until cancelled.'),
    confirm: confirmArg,
  },
  output: { started: override },
  async run(client, i) {
    const kinds = [i.text, i.mediaId, i.playlistId].filter((x) => x !== undefined).length;
    if (kinds !== 1) return refuse('VALIDATION_FAILED', 'give exactly one of text, mediaId and playlistId');
    if (!i.all && !i.tags?.length && !i.screenIds?.length) return refuse('VALIDATION_FAILED', 'give a target: screenIds, tags or all: true');
    const target = await reach(client, i);
    if (!target.ok) return target;
    if (target.value.total === 0) return refuse('VALIDATION_FAILED', 'the target reaches no screen; nothing was changed');
    if (i.confirm !== true)
      return needsConfirm(
        `This would take over ${target.value.total} screen(s) with override "${i.name}": ${names(target.value.screens, target.value.total)}.`,
      );
    const content = i.text
      ? { type: 'MESSAGE' as const, text: i.text, textColor: i.textColor ?? null, backgroundColor: i.backgroundColor ?? null }
      : i.mediaId
        ? { type: 'MEDIA' as const, mediaId: i.mediaId }
        : { type: 'PLAYLIST' as const, playlistId: i.playlistId! };
    const r = await client.graphql(d.StartOverrideDocument, {
      input: {
        name: i.name,
        content: content as d.OverrideContentInput,
        target: { all: i.all ?? null, tags: i.tags ?? null, deviceIds: i.screenIds ?? null },
        startsAt: i.startsAt ?? null,
        endsAt: i.endsAt ?? null,
      },
    });
    return answered(r, 'started', (v) => v.startOverride);
  },
});

export const cancelOverride = defineTool({
  name: 'cancel_override',
  title: 'Cancel an emergency override',
  kind: 'destructive',
  description: `Ends a scheduled or active emergency override at once on every screen it took over; they return to their schedules
(a screen offline now returns when it next reaches Pylon). Give its id (start_override or list_overrides answers it). Without
confirm: true it changes nothing and answers the override's name and the screens it would release; call again with confirm: true.
Answers the override after the cancel (state CANCELLED, cancelledAt). Needs the Overrides_Edit permission.`,
  input: {
    overrideId: z.string().min(1).max(200).describe('The override id.'),
    confirm: confirmArg,
  },
  output: { cancelled: override },
  async run(client, i) {
    const found = await client.graphql(d.GetOverrideDocument, { id: i.overrideId });
    if (!found.ok) return found;
    const o = found.value.override;
    if (!o) return refuse('NOT_FOUND', `no override with id ${i.overrideId} in your account; nothing was changed`);
    if (o.state !== 'SCHEDULED' && o.state !== 'ACTIVE')
      return refuse('VALIDATION_FAILED', `override "${o.name}" is ${String(o.state)} already; nothing was changed`);
    const screens = o.screens.map((s) => s.device);
    if (i.confirm !== true)
      return needsConfirm(`This would cancel override "${o.name}" (${o.id}), releasing ${screens.length} screen(s): ${names(screens, screens.length)}.`);
    const r = await client.graphql(d.CancelOverrideDocument, { id: o.id });
    return answered(r, 'cancelled', (v) => v.cancelOverride);
  },
});

export const listOverrides = defineTool({
  name: 'list_overrides',
  title: 'List emergency overrides',
  kind: 'read',
  description: `Lists your account's emergency overrides, the latest start first, at most ${MAX_OVERRIDES} per call (limit). openOnly: true
gives only those not yet ended or cancelled (what screens may be showing now). Each with its state, content, time box, how many
screens it targets and how many are in each state (PENDING, SHOWING, ENDED, UNREACHABLE), and the first ${NAMED} screens.`,
  input: {
    openOnly: z.boolean().optional().describe('true: only SCHEDULED and ACTIVE overrides.'),
    limit: z.number().int().min(1).max(MAX_OVERRIDES).optional().describe(`At most this many, default 10, at most ${MAX_OVERRIDES}.`),
  },
  output: { overrides: z.array(override) },
  async run(client, i) {
    const r = await client.graphql(d.ListOverridesDocument, { openOnly: i.openOnly ?? null, limit: i.limit ?? 10 });
    if (!r.ok) return r;
    return { ok: true, value: { overrides: r.value.overrides.map(view) } };
  },
});
