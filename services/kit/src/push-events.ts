/**
 * Push events: the one catalogue of what integrations are told (webhooks, the live stream).
 *
 *   subgraph write ──emit()──> BufferedPublisher ──> stream topic `push.events` ──> delivery worker / SSE
 *
 * Invariants:
 * - Every event is produced where the change happens, after the change is stored, and never
 *   delivered inline: `emit` only buffers (the publisher batches, spools when the stream refuses).
 * - An event carries its id, type, time, account and a payload that names the resource by id
 *   (`device_id`, `alert_id`, ...). Events about one device also carry its group and tags, so
 *   endpoint filters need no lookup.
 * - The wire form is the Standard Webhooks payload (`type`, `timestamp`, `data`) plus `id` and
 *   `account_id`; the `data` shapes below are the contract (additive changes only).
 * - Each type names the policy that may read it (the stream and the endpoints' owners see only
 *   types whose policy they hold).
 */
import { randomUUID } from 'node:crypto';
import type { AccessRule } from './auth/access.js';
import type { BufferedPublisher } from './telemetry-publisher.js';
import { DEAD_LETTER_TOPIC, TOPICS } from './telemetry.js';

/** The durable topic every push event goes to (beside the telemetry topics; its own consumers). */
export const PUSH_EVENTS_TOPIC = 'push.events';

/** Every topic Pylon publishes to: what the migrations job creates ahead of time. */
export const STREAM_TOPICS: string[] = [...Object.values(TOPICS), DEAD_LETTER_TOPIC, PUSH_EVENTS_TOPIC];

/** What an event about one device names; group and tags are its values when the event was produced. */
export interface DeviceRef {
  device_id: string;
  device_group_id?: string | null;
  device_tags?: string[];
}

export interface DevicePayload extends DeviceRef {
  name: string;
}
export interface DeviceUpdatedPayload extends DevicePayload {
  /** The device fields the change set. */
  changed_fields: string[];
}
export interface DeviceStatePayload extends DeviceRef {
  /** The last ping (ISO time), null when it never pinged. */
  last_ping_at: string | null;
}
export interface AlertPayload extends DeviceRef {
  alert_id: string;
  alert_rule_id: string;
  rule_name: string;
  /** Why it opened (the rule's condition as it held). */
  reason: string;
  snoozed_until?: string | null;
  resolved_on?: string | null;
}
export interface CommandPayload extends DeviceRef {
  command_id: string;
  command: string;
  status: string;
}
export interface MediaPayload {
  /** Null for a URL import that failed before a media file existed. */
  media_id: string | null;
  name: string;
  /** Why the media failed (media.failed only). */
  error?: string;
}
export interface ContentChangedPayload {
  playlist_id?: string;
  template_id?: string;
  /** created | updated | deleted */
  change: 'created' | 'updated' | 'deleted';
}
export interface ScheduleChangedPayload {
  schedule_id: string;
  change: 'created' | 'updated' | 'deleted';
}
export interface NowPlayingPayload extends DeviceRef {
  /** The device's new manifest version. */
  manifest_version: string;
}
/** content.expired: a playlist source's or a media file's validUntil came (content expiry, issue 37.3). */
export interface ContentExpiredPayload {
  /** The playlist of an expired source; null when a media file expired. */
  playlist_id: string | null;
  source_id: string | null;
  /** The expired file (or the expired source's file); null for a web page source. */
  media_id: string | null;
  valid_until: string;
}
/**
 * content.running_empty: a playlist or a media file runs empty because of expiry at `runs_empty_at`
 * (every source of the playlist expires by then; the file's validUntil), announced a lead before it.
 */
export interface ContentRunningEmptyPayload {
  /** The playlist that runs empty; null for a media file. */
  playlist_id: string | null;
  /** The media file that expires (whatever plays it alone runs empty); null for a playlist. */
  media_id: string | null;
  /** The playlist's or file's name. */
  name: string;
  runs_empty_at: string;
}
export interface OverridePayload {
  override_id: string;
  name: string;
  /** Screens it targets (resolved when it started). */
  device_count: number;
  starts_at: string;
  /** Null: until cancelled. */
  ends_at: string | null;
  /** override.ended only: cancelled (by a user or an alert feed) or expired (its time box ran out). */
  reason?: 'cancelled' | 'expired';
}
export interface OverrideAckPayload extends DeviceRef {
  override_id: string;
  /** SHOWING (the screen shows it) or ENDED (the screen stopped showing it). */
  state: 'SHOWING' | 'ENDED';
  /** When the screen said so (ISO 8601). */
  acknowledged_at: string;
}
export interface RowsChangedPayload {
  datatable_id: string;
  /** created | updated | deleted | imported | reordered | rolled_back */
  change: string;
  /** Rows named by the change (at most 100; `row_count` says how many there were). */
  row_ids: string[];
  row_count: number;
}
export interface UserPayload {
  user_id: string;
  email: string;
}
export interface UserUpdatedPayload extends UserPayload {
  /** The fields that changed (GraphQL names: disabled, email, firstName, lastName, orgId, roles). */
  changed: string[];
  disabled: boolean;
}
export interface ApiKeyPayload {
  api_key_id: string;
  name: string;
}
export interface EndpointDisabledPayload {
  webhook_endpoint_id: string;
  reason: string;
}
export interface TestPayload {
  webhook_endpoint_id: string;
  message: string;
}

/** Every event type and its payload. */
export interface PushEventPayloads {
  'device.registered': DevicePayload;
  'device.updated': DeviceUpdatedPayload;
  'device.deleted': DevicePayload;
  'device.online': DeviceStatePayload;
  'device.offline': DeviceStatePayload;
  'alert.opened': AlertPayload;
  'alert.resolved': AlertPayload;
  'alert.snoozed': AlertPayload;
  'command.delivered': CommandPayload;
  'command.acknowledged': CommandPayload;
  'command.expired': CommandPayload;
  'media.ready': MediaPayload;
  'media.failed': MediaPayload;
  'playlist.changed': ContentChangedPayload;
  'template.changed': ContentChangedPayload;
  'schedule.changed': ScheduleChangedPayload;
  'now_playing.changed': NowPlayingPayload;
  'datatable.rows_changed': RowsChangedPayload;
  'content.expired': ContentExpiredPayload;
  'content.running_empty': ContentRunningEmptyPayload;
  'override.started': OverridePayload;
  'override.acknowledged': OverrideAckPayload;
  'override.ended': OverridePayload;
  'user.created': UserPayload;
  'user.updated': UserUpdatedPayload;
  'api_key.revoked': ApiKeyPayload;
  'webhook_endpoint.disabled': EndpointDisabledPayload;
  'webhook.test': TestPayload;
}

export type PushEventType = keyof PushEventPayloads;

/** One event as stored on the stream, delivered to webhooks and sent on the live stream. */
export interface PushEvent<T extends PushEventType = PushEventType> {
  /** `evt_` + a UUID: the Standard Webhooks `webhook-id` and the SSE event id's key. */
  id: string;
  type: T;
  /** ISO 8601, when the change happened. */
  timestamp: string;
  account_id: string;
  data: PushEventPayloads[T];
}

export interface CatalogueEntry<T extends PushEventType> {
  description: string;
  /** The policy a reader must hold (live stream; webhook endpoints subscribing to the type). */
  view: AccessRule;
  example: PushEventPayloads[T];
}

const device = { device_id: '3f1c0a5e-6d8b-4f0e-9a57-1c2d3e4f5a6b', device_group_id: 'lobby', device_tags: ['floor-1'] };
const alert = { ...device, alert_id: 'a1b2c3', alert_rule_id: 'r1', rule_name: 'Offline 10 min', reason: 'offline for 12 minutes' };

/** The catalogue: one entry per type, in the order the docs list them. */
export const PUSH_EVENT_CATALOGUE: { [T in PushEventType]: CatalogueEntry<T> } = {
  'device.registered': { description: 'A device was registered.', view: 'Devices_View', example: { ...device, name: 'Lobby screen' } },
  'device.updated': {
    description: 'A device was changed (name, group, tags, settings).',
    view: 'Devices_View',
    example: { ...device, name: 'Lobby screen', changed_fields: ['name'] },
  },
  'device.deleted': { description: 'A device was deleted.', view: 'Devices_View', example: { ...device, name: 'Lobby screen' } },
  'device.online': {
    description: 'A device pinged after being offline (or for the first time).',
    view: 'Devices_View',
    example: { ...device, last_ping_at: '2026-11-24T10:00:00.000Z' },
  },
  'device.offline': {
    description: 'A device stopped pinging for longer than the online window.',
    view: 'Devices_View',
    example: { ...device, last_ping_at: '2026-11-24T09:50:00.000Z' },
  },
  'alert.opened': {
    description: 'An alert rule fired for a device.',
    view: 'Alerts_View',
    example: alert,
  },
  'alert.resolved': {
    description: 'An alert closed (the condition cleared, or a user resolved it).',
    view: 'Alerts_View',
    example: { ...alert, resolved_on: '2026-11-24T10:30:00.000Z' },
  },
  'alert.snoozed': {
    description: 'A user snoozed an alert.',
    view: 'Alerts_View',
    example: { ...alert, snoozed_until: '2026-11-25T10:00:00.000Z' },
  },
  'command.delivered': {
    description: 'A queued command was handed to the device on its ping.',
    view: 'Devices_View',
    example: { ...device, command_id: 'c1', command: 'reboot', status: 'delivered' },
  },
  'command.acknowledged': {
    description: 'The device reported a command carried out (status acknowledged) or failed (status failed).',
    view: 'Devices_View',
    example: { ...device, command_id: 'c1', command: 'reboot', status: 'acknowledged' },
  },
  'command.expired': {
    description: 'A command was not delivered or acknowledged before its expiry.',
    view: 'Devices_View',
    example: { ...device, command_id: 'c1', command: 'reboot', status: 'expired' },
  },
  'media.ready': { description: 'A media file was stored and can be played.', view: 'Files_View', example: { media_id: 'm1', name: 'menu.png' } },
  'media.failed': {
    description: 'A media import from a URL failed (download, type or size).',
    view: 'Files_View',
    example: { media_id: null, name: 'menu.mp4', error: 'the url answered HTTP 404' },
  },
  'playlist.changed': { description: 'A playlist was created, changed or deleted.', view: 'Playlists_View', example: { playlist_id: 'p1', change: 'updated' } },
  'template.changed': { description: 'A template was created, changed or deleted.', view: 'Templates_View', example: { template_id: 't1', change: 'updated' } },
  'schedule.changed': { description: 'A schedule was created, changed or deleted.', view: 'Schedules_View', example: { schedule_id: 's1', change: 'created' } },
  'now_playing.changed': {
    description: "A device's manifest version changed: what it plays changed.",
    view: 'Schedules_View',
    example: { ...device, manifest_version: 'v-9f2c' },
  },
  'content.expired': {
    description: "A playlist source's or a media file's validUntil came: screens no longer show it (content expiry).",
    view: 'Playlists_View',
    example: { playlist_id: 'p1', source_id: 's1', media_id: 'm1', valid_until: '2026-12-01T00:00:00Z' },
  },
  'content.running_empty': {
    description:
      'A playlist (every source expires by then) or a media file (its validUntil) runs empty because of expiry: announced a lead before (CONTENT_RUNS_EMPTY_LEAD_HOURS); the devices service opens an alert.',
    view: 'Playlists_View',
    example: { playlist_id: 'p1', media_id: null, name: 'Lobby loop', runs_empty_at: '2026-12-01T00:00:00Z' },
  },
  'datatable.rows_changed': {
    description: 'Rows of a data table were created, changed, deleted, imported, reordered or rolled back.',
    view: 'DataTables_View',
    example: { datatable_id: 'd1', change: 'created', row_ids: ['r1', 'r2'], row_count: 2 },
  },
  'override.started': {
    description: 'An emergency override began (at once, or when its start time came): its screens show it over every schedule.',
    view: 'Schedules_View',
    example: { override_id: 'o1', name: 'Evacuate', device_count: 12, starts_at: '2026-11-24T10:00:00Z', ends_at: null },
  },
  'override.acknowledged': {
    description: 'A screen reported showing an override (state SHOWING) or no longer showing it (state ENDED).',
    view: 'Schedules_View',
    example: { ...device, override_id: 'o1', state: 'SHOWING', acknowledged_at: '2026-11-24T10:00:01Z' },
  },
  'override.ended': {
    description: 'An emergency override ended: cancelled, or its time box ran out.',
    view: 'Schedules_View',
    example: { override_id: 'o1', name: 'Evacuate', device_count: 12, starts_at: '2026-11-24T10:00:00Z', ends_at: '2026-11-24T10:30:00Z', reason: 'cancelled' },
  },
  'user.created': { description: 'A user was added to the account.', view: 'Account_ManageUsers_View', example: { user_id: 'u1', email: 'ana@example.com' } },
  'user.updated': {
    description: "A user's names, email, roles, organization or disabled state changed (updateUser, PATCH /users/{id}).",
    view: 'Account_ManageUsers_View',
    example: { user_id: 'u1', email: 'ana@example.com', changed: ['disabled'], disabled: true },
  },
  'api_key.revoked': { description: 'An API key was revoked.', view: 'Administrator', example: { api_key_id: 'k1', name: 'CI' } },
  'webhook_endpoint.disabled': {
    description: 'A webhook endpoint was disabled after failing persistently.',
    view: 'Webhooks_View',
    example: { webhook_endpoint_id: 'we_1', reason: 'every delivery failed for 24 hours' },
  },
  'webhook.test': {
    description: 'Sent by sendTestWebhookEvent to one endpoint only.',
    view: 'Webhooks_View',
    example: { webhook_endpoint_id: 'we_1', message: 'a test event from Pylon' },
  },
};

export const PUSH_EVENT_TYPES = Object.keys(PUSH_EVENT_CATALOGUE) as PushEventType[];

export const isPushEventType = (t: unknown): t is PushEventType => typeof t === 'string' && Object.hasOwn(PUSH_EVENT_CATALOGUE, t);

/** The device an event is about (filters by device, group and tag read it), if any. */
export function deviceOf(event: PushEvent): DeviceRef | null {
  const d = event.data as Partial<DeviceRef>;
  return typeof d.device_id === 'string' ? (d as DeviceRef) : null;
}

/**
 * What producers hold: `emit` buffers the event for the stream and returns at once (the write
 * that caused it is already stored; the publisher never fails it).
 */
export interface PushEvents {
  emit<T extends PushEventType>(accountId: string, type: T, data: PushEventPayloads[T], at?: number): void;
}

export const newEventId = (): string => `evt_${randomUUID().replace(/-/g, '')}`;

/** Builds an event (the id fresh, the time now unless given). */
export function pushEvent<T extends PushEventType>(accountId: string, type: T, data: PushEventPayloads[T], at = Date.now()): PushEvent<T> {
  return { id: newEventId(), type, timestamp: new Date(at).toISOString(), account_id: accountId, data };
}

/** Producers' emitter over the durable publisher of `push.events`. */
export function pushEventsOver(publisher: BufferedPublisher<PushEvent>): PushEvents {
  return { emit: (accountId, type, data, at) => publisher.push(pushEvent(accountId, type, data, at) as PushEvent) };
}

/** The device fields events about one device carry. */
export const deviceRef = (d: { id: string; groupId?: string | null; tags?: readonly string[] | null }): DeviceRef => ({
  device_id: d.id,
  device_group_id: d.groupId ?? null,
  device_tags: [...(d.tags ?? [])],
});
