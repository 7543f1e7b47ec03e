/**
 * POST /devices/{id}/commands, POST /devices/commands, POST /devices/{id}/track, and the ping data
 * and screenshot reads by registration key.
 */
import { AppError, badInput, notFound, payloadAt, snakeKeys } from '@pylon/kit';
import { toRestPingData } from './devices.js';
import type { GetDevicePingDataQuery, GetDeviceSnapQuery, SendBulkDeviceCommandsMutation } from '@pylon/kit/generated/rest-operations.generated';
import { restOp } from './declare.js';

/** A REST command: { command, arg } (spec) or { name, arg } (reference); a numeric arg is sent as its text. */
function commandsOf(list: unknown): { command: unknown; arg: unknown }[] {
  return (Array.isArray(list) ? list : []).map((c: Record<string, unknown>) => ({
    command: c.command ?? c.name,
    arg: typeof c.arg === 'number' ? String(c.arg) : (c.arg ?? null),
  }));
}

/**
 * Queued, answered 204 like the reference (no body); `Location` names the queued commands, a list
 * `GET /devices/{id}/commands?id=...` answers with their status.
 */
export const sendDeviceCommand = restOp('sendDeviceCommand', {
  variables: ({ params, body }) => ({ deviceId: params.id, commands: commandsOf(body) }),
  respond(data, { params }) {
    const payload = payloadAt(data, 'sendDeviceCommand') as NonNullable<typeof data.sendDeviceCommand>;
    const ids = (payload.commands ?? []).map((c) => `id=${encodeURIComponent(c.id)}`);
    return { status: 204, body: null, headers: { Location: `/devices/${encodeURIComponent(String(params.id))}/commands?${ids.join('&')}` } };
  },
  accepts: { path: ['id'], body: 'whole' },
});

const STATUS_TO_GQL: Record<string, string> = { Queued: 'QUEUED', Delivered: 'DELIVERED', Acknowledged: 'ACKNOWLEDGED', Failed: 'FAILED', Expired: 'EXPIRED' };
const STATUS_TO_REST = Object.fromEntries(Object.entries(STATUS_TO_GQL).map(([rest, gql]) => [gql, rest]));
/** The newest commands a device keeps that a list by id looks through. */
const BY_ID_WINDOW = 1000;

/** GET /devices/{id}/commands: newest first, with status; `id` keeps the commands a send's `Location` named. */
export const listDeviceCommands = restOp('listDeviceCommands', {
  variables: ({ params, query }) => ({
    deviceId: params.id,
    status: Array.isArray(query.status) ? query.status.map((s) => STATUS_TO_GQL[String(s)]) : undefined,
    limit: Array.isArray(query.id) ? BY_ID_WINDOW : query.take,
  }),
  respond(data, { query }) {
    const wanted = Array.isArray(query.id) ? new Set(query.id.map(String)) : undefined;
    const commands = (data.deviceCommands ?? []).filter((c) => !wanted || wanted.has(c.id));
    const take = typeof query.take === 'number' ? query.take : 100;
    return { body: commands.slice(0, take).map((c) => ({ ...(snakeKeys(c) as object), status: STATUS_TO_REST[c.status] ?? c.status })) };
  },
  fieldNames: { deviceId: 'id', limit: 'take' },
  accepts: { path: ['id'], query: ['id', 'status', 'take'] },
});

/**
 * Two bodies: Pylon's `{ device_ids, commands }` (the same commands for every device; answered 200
 * with per-device results), and the reference's `[{ deviceId, commands: [{ name, arg }] }]` (commands
 * per device; one call per distinct command list; answered 204, or 404 naming the first device
 * that is not the caller's).
 */
type DeviceCommand = { deviceId?: unknown; commands?: unknown };

type BulkData = SendBulkDeviceCommandsMutation | { batches: SendBulkDeviceCommandsMutation[] };

export const sendBulkDeviceCommands = restOp<'sendBulkDeviceCommands', BulkData>('sendBulkDeviceCommands', {
  batches({ body }) {
    if (!Array.isArray(body)) return undefined;
    const byCommands = new Map<string, { deviceIds: unknown[]; commands: unknown[] }>();
    for (const entry of body as DeviceCommand[]) {
      const commands = commandsOf(entry.commands);
      const key = JSON.stringify(commands);
      const batch = byCommands.get(key) ?? { deviceIds: [], commands };
      batch.deviceIds.push(entry.deviceId);
      byCommands.set(key, batch);
    }
    return [...byCommands.values()].map((input) => ({ input }));
  },
  variables: ({ body }) => {
    const b = (body ?? {}) as Record<string, unknown>;
    return { input: { deviceIds: b.device_ids, commands: commandsOf(b.commands) } };
  },
  respond(data, { body }) {
    if (!('batches' in data)) return { body: snakeKeys(data.sendBulkDeviceCommands) };
    for (const answer of data.batches) {
      const results = answer.sendBulkDeviceCommands?.results ?? [];
      const failed = results.find((r) => r.success !== true);
      if (failed) {
        const index = (body as DeviceCommand[]).findIndex((e) => e.deviceId === failed.deviceId);
        const message = typeof failed.error === 'string' ? failed.error : 'the command could not be queued';
        // Unknown and foreign devices fail alone (404); invalid commands fail every device (400).
        const unknown = /not found/i.test(message);
        throw new AppError(unknown ? 'NOT_FOUND' : 'BAD_USER_INPUT', message, { field: unknown ? `body[${index}].deviceId` : `body[${index}].commands` });
      }
    }
    return { status: 204, body: null };
  },
  fieldNames: { 'input.deviceIds': 'device_ids', deviceIds: 'device_ids', input: 'body' },
  accepts: { body: ['device_ids', 'commands'], arrayBody: true },
});

export const trackDeviceEvent = restOp('trackDeviceEvent', {
  variables: ({ params, body }) => {
    const b = (body ?? {}) as Record<string, unknown>;
    return { deviceId: params.id, input: { sessionId: b.session_id, eventName: b.event_name, properties: b.properties } };
  },
  // 204 like the reference (the event is queued for the analytics stream; nothing to read back).
  respond(data) {
    payloadAt(data, 'trackDeviceEvent', { eventName: 'event_name', sessionId: 'session_id' });
    return { status: 204, body: null };
  },
  accepts: { path: ['id'], body: ['session_id', 'event_name', 'properties'] },
});

/** The device a registration key names in the caller's account (another account's key is unknown). */
function deviceByKey<D>(data: { device: D[] | null }): D {
  const [device] = data.device ?? [];
  if (!device) throw notFound('device with this registration key');
  return device;
}

function pingDataBody(data: GetDevicePingDataQuery) {
  const ping = deviceByKey(data).pingData;
  if (!ping) throw new AppError('NOT_FOUND', 'the device has not pinged yet');
  return { body: toRestPingData(ping) };
}

export const getPingData = restOp('getPingData', {
  variables: ({ query }) => {
    const key = query.registration_key ?? query.key;
    if (typeof key !== 'string') throw badInput('registration_key', 'registration_key is required');
    return { registrationKey: key };
  },
  respond: (data) => pingDataBody(data),
  accepts: { query: ['registration_key', 'key'] },
});

export const getDevicePingData = restOp('getDevicePingData', {
  variables: ({ params }) => ({ registrationKey: params.registrationKey }),
  respond: (data) => pingDataBody(data),
  accepts: { path: ['registrationKey'] },
});

/** The latest screenshot as image/jpeg (or its base64 text with base64=true). */
export const getDeviceSnap = restOp('getDeviceSnap', {
  variables: ({ params }) => ({ registrationKey: params.registrationKey }),
  respond(data: GetDeviceSnapQuery, { query }) {
    const snap = deviceByKey(data).snap;
    if (typeof snap !== 'string') throw new AppError('NOT_FOUND', 'the device has sent no screenshot yet');
    if (query.base64 === true) return { body: snap, contentType: 'text/plain; charset=utf-8' };
    return { body: Buffer.from(snap, 'base64'), contentType: 'image/jpeg' };
  },
  accepts: { path: ['registrationKey'], query: ['base64'] },
});
