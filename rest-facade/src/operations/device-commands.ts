/**
 * POST /devices/{id}/commands, POST /devices/commands, POST /devices/{id}/track, and the ping data
 * and screenshot reads by registration key.
 */
import { AppError, badInput, notFound, payloadAt, snakeKeys } from '@pylon/kit';
import { toRestPingData } from './devices.js';
import type {
  DeviceCommandInput,
  GetDevicePingDataQuery,
  GetDeviceSnapQuery,
  SendBulkDeviceCommandsMutation,
} from '@pylon/kit/generated/rest-operations.generated';
import { restOp } from './declare.js';
import { answers, arrayOf, errors, json, jsonBody, md, noContent, params, ref, route } from './route.js';
import { gql } from './gql.js';
import type { RestRequestBodyOf } from './types.js';

/** A command as sent, before the gateway checks it against DeviceCommandInput. */
type SentCommand = { readonly command?: unknown; readonly name?: unknown; readonly arg?: unknown };

/** A REST command: { command, arg } (spec) or { name, arg } (reference); a numeric arg is sent as its text. */
function commandsOf(list: unknown): { [K in keyof DeviceCommandInput]-?: unknown }[] {
  return (Array.isArray(list) ? (list as SentCommand[]) : []).map((c) => ({
    command: c.command ?? c.name,
    arg: typeof c.arg === 'number' ? String(c.arg) : (c.arg ?? null),
  }));
}

/**
 * Queued, answered 204 like the reference (no body); `Location` names the queued commands, a list
 * `GET /devices/{id}/commands?id=...` answers with their status.
 */
export const sendDeviceCommand = route(
  'POST /devices/{id}/commands',
  {
    tags: ['Devices'],
    summary: 'Send commands to one device.',
    description: md(
      "Queues the commands (1 to 20, each `{ command, arg }`; the reference's `name` is accepted for `command`),",
      "delivered in order on the device's next ping. `command` must be one of the account's",
      'display commands (restart, reboot, screenshot, refresh, display_on, display_off, volume,',
      'clear_cache, update); volume needs `arg`, an integer 0 to 100. Commands expire after',
      'DEVICE_COMMAND_TTL_SECONDS (default 24 h). Policy: Devices_Edit.',
    ),
    parameters: params('IdPath'),
    requestBody: {
      required: true,
      content: json({ type: 'array', minItems: 1, maxItems: 20, items: ref('Command') }),
    },
    responses: {
      '204': {
        description: md(
          "Queued (the reference's status, so no body). `Location` names the queued commands:",
          '`GET` it (`/devices/{id}/commands?id=...&id=...`) to follow their status.',
        ),
        headers: { Location: { description: 'The list of the commands just queued, by id.', schema: { type: 'string' } } },
      },
      ...errors(400, 401, 403, 404, 500),
    },
  },
  restOp('sendDeviceCommand', {
    document: gql`
      # POST /devices/{id}/commands.
      mutation sendDeviceCommand($deviceId: String!, $commands: [DeviceCommandInput!]!) {
        sendDeviceCommand(deviceId: $deviceId, commands: $commands) {
          ...RestOutcome
          deviceId
          commandCount
          commands {
            id
            command
            arg
            status
            queuedOn
            expiresOn
          }
        }
      }
    `,
    variables: ({ params, body }) => ({ deviceId: params.id, commands: commandsOf(body) }),
    respond(data, { params }) {
      const payload = payloadAt(data, 'sendDeviceCommand') as NonNullable<typeof data.sendDeviceCommand>;
      const ids = (payload.commands ?? []).map((c) => `id=${encodeURIComponent(c.id)}`);
      return { status: 204, body: null, headers: { Location: `/devices/${encodeURIComponent(String(params.id))}/commands?${ids.join('&')}` } };
    },
    accepts: { path: ['id'], body: 'whole' },
  }),
);

const STATUS_TO_GQL: Record<string, string> = { Queued: 'QUEUED', Delivered: 'DELIVERED', Acknowledged: 'ACKNOWLEDGED', Failed: 'FAILED', Expired: 'EXPIRED' };
const STATUS_TO_REST = Object.fromEntries(Object.entries(STATUS_TO_GQL).map(([rest, gql]) => [gql, rest]));
/** The newest commands a device keeps that a list by id looks through. */
const BY_ID_WINDOW = 1000;

/** GET /devices/{id}/commands: newest first, with status; `id` keeps the commands a send's `Location` named. */
export const listDeviceCommands = route(
  'GET /devices/{id}/commands',
  {
    tags: ['Devices'],
    summary: "The device's commands and their status.",
    description: md(
      'Newest first: each command with its status (Queued, Delivered: handed to a ping, Acknowledged',
      "or Failed: the player's answer, Expired), when it was queued, delivered and completed.",
      '`id` (repeatable) keeps the given commands only (the `Location` of a send names them);',
      '`status` (repeatable) keeps those statuses. At most `take` (default 100, at most 1000).',
      'Policy: Devices_View.',
    ),
    parameters: [
      ...params('IdPath'),
      {
        name: 'id',
        in: 'query',
        description: 'Only these commands (repeat the parameter).',
        schema: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 200 } },
        style: 'form',
        explode: true,
      },
      {
        name: 'status',
        in: 'query',
        description: 'Only commands in these statuses (repeat the parameter).',
        schema: { type: 'array', maxItems: 5, items: { type: 'string', enum: ['Queued', 'Delivered', 'Acknowledged', 'Failed', 'Expired'] } },
        style: 'form',
        explode: true,
      },
      {
        name: 'take',
        in: 'query',
        description: 'At most this many commands (newest first).',
        schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
      },
    ],
    responses: answers('The commands, newest first.', arrayOf('CommandStatus'), 400, 401, 403, 404, 500),
  },
  restOp('listDeviceCommands', {
    document: gql`
      # GET /devices/{id}/commands. Variables come from rest-facade/src/operations/device-commands.ts.
      query listDeviceCommands($deviceId: String!, $status: [DeviceCommandStatus!], $limit: Int) {
        deviceCommands(deviceId: $deviceId, status: $status, limit: $limit) {
          id
          deviceId
          command
          arg
          status
          queuedOn
          deliveredOn
          completedOn
          expiresOn
          error
        }
      }
    `,
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
  }),
);

/**
 * Two bodies: Pylon's `{ device_ids, commands }` (the same commands for every device; answered 200
 * with per-device results), and the reference's `[{ deviceId, commands: [{ name, arg }] }]` (commands
 * per device; one call per distinct command list; answered 204, or 404 naming the first device
 * that is not the caller's).
 */
type DeviceCommand = { deviceId?: unknown; commands?: unknown };

type BulkData = SendBulkDeviceCommandsMutation | { batches: SendBulkDeviceCommandsMutation[] };

export const sendBulkDeviceCommands = route(
  'POST /devices/commands',
  {
    tags: ['Devices'],
    summary: 'Send the same commands to many devices.',
    description: md(
      "Two bodies. The reference's: an array of `{ deviceId, commands: [{ name, arg }] }` (commands",
      'per device), answered 204 like the reference, or 404 naming the first device',
      "(`body[i].deviceId`) that is unknown or another account's, 400 for invalid commands.",
      "Pylon's: `{ device_ids, commands }` (the same commands for every device, at most 5000",
      'distinct ids), answered 200 with one result per distinct device id: unknown devices and',
      'devices of other accounts fail individually (`success: false` with an error); invalid',
      "commands fail every device. Each command is delivered on that device's next ping.",
      'Policy: Devices_Edit.',
    ),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            anyOf: [ref('BulkCommands'), { type: 'array', minItems: 1, maxItems: 5000, items: ref('DeviceCommand') }],
          },
        },
      },
    },
    responses: {
      '200': {
        description: "Per-device results (Pylon's body only).",
        'x-reference-deviation':
          "Pylon's own body ({ device_ids, commands }, which a reference client never sends) is answered 200 with the per-device results our spec gives sendBulkDeviceCommands; the reference's array body is answered 204.",
        content: json(ref('BulkCommandsResult')),
      },
      '204': { description: 'Queued (reference body).' },
      ...errors(400, 401, 403, 404, 500),
    },
  },
  restOp<'sendBulkDeviceCommands', BulkData>('sendBulkDeviceCommands', {
    document: gql`
      # POST /devices/commands.
      mutation sendBulkDeviceCommands($input: BulkDeviceCommandsInput!) {
        sendBulkDeviceCommands(input: $input) {
          totalDevices
          successCount
          failureCount
          results {
            success
            deviceId
            error
          }
        }
      }
    `,
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
      const b = (body ?? {}) as Exclude<RestRequestBodyOf<'sendBulkDeviceCommands'>, readonly unknown[]>;
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
  }),
);

export const trackDeviceEvent = route(
  'POST /devices/{id}/track',
  {
    tags: ['Devices'],
    summary: 'Record an event of a device.',
    description:
      'Published to the analytics stream (event logs, event metrics). `properties` is a JSON object of at most 16 KB. Answers 204, as the reference does. Policy Devices_Edit.',
    parameters: params('IdPath'),
    requestBody: jsonBody('Event'),
    responses: noContent("Recorded (the reference's status); GraphQL eventLogs reads it.", 400, 401, 403, 404, 500),
  },
  restOp('trackDeviceEvent', {
    document: gql`
      # POST /devices/{id}/track.
      mutation trackDeviceEvent($deviceId: String!, $input: DeviceEventInput!) {
        trackDeviceEvent(deviceId: $deviceId, input: $input) {
          ...RestOutcome
          eventId
          deviceId
          timestamp
        }
      }
    `,
    variables: ({ params, body }) => {
      const b = (body ?? {}) as Partial<RestRequestBodyOf<'trackDeviceEvent'>>;
      return { deviceId: params.id, input: { sessionId: b.session_id, eventName: b.event_name, properties: b.properties } };
    },
    // 204 like the reference (the event is queued for the analytics stream; nothing to read back).
    respond(data) {
      payloadAt(data, 'trackDeviceEvent', { eventName: 'event_name', sessionId: 'session_id' });
      return { status: 204, body: null };
    },
    accepts: { path: ['id'], body: ['session_id', 'event_name', 'properties'] },
  }),
);

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

export const getPingData = route(
  'GET /devices/pingdata',
  {
    tags: ['Devices'],
    summary: 'Latest ping data of the device with a registration key.',
    description: "404 when no device of the caller's account has this key, or it has not pinged yet. Policy Devices_View.",
    parameters: [
      {
        name: 'registration_key',
        in: 'query',
        description: "The device's registration key.",
        schema: { type: 'string', minLength: 1, maxLength: 200 },
      },
      { name: 'key', in: 'query', description: "The same, under the reference API's name.", schema: { type: 'string', minLength: 1, maxLength: 200 } },
    ],
    responses: answers('The latest ping data.', ref('PingData'), 400, 401, 403, 404, 500),
  },
  {
    // The same read as GET /devices/{registrationKey}/pingdata, the key in the query: that operation's document.
    via: () => 'getDevicePingData',
    variables: ({ query }) => {
      const key = query.registration_key ?? query.key;
      if (typeof key !== 'string') throw badInput('registration_key', 'registration_key is required');
      return { registrationKey: key };
    },
    respond: (data) => pingDataBody(data as GetDevicePingDataQuery),
    accepts: { query: ['registration_key', 'key'] },
  },
);

export const getDevicePingData = route(
  'GET /devices/{registrationKey}/pingdata',
  {
    tags: ['Devices'],
    summary: 'Latest ping data by registration key.',
    description: 'As GET /devices/pingdata, with the key in the path. Policy Devices_View.',
    parameters: params('RegistrationKeyPath'),
    responses: answers('The latest ping data.', ref('PingData'), 401, 403, 404, 500),
  },
  restOp('getDevicePingData', {
    document: gql`
      # GET /devices/{registrationKey}/pingdata, and GET /devices/pingdata?registration_key= (its via).
      query getDevicePingData($registrationKey: String!) {
        device(registrationKey: $registrationKey, limit: 1) {
          id
          pingData {
            ...RestPingData
          }
        }
      }
    `,
    variables: ({ params }) => ({ registrationKey: params.registrationKey }),
    respond: (data) => pingDataBody(data),
    accepts: { path: ['registrationKey'] },
  }),
);

/** The latest screenshot as image/jpeg (or its base64 text with base64=true). */
export const getDeviceSnap = route(
  'GET /devices/{registrationKey}/snap',
  {
    tags: ['Devices'],
    summary: 'The latest screenshot (JPEG) by registration key.',
    description:
      'The JPEG the player last sent (PUT /player/{registrationKey}/snap); with base64=true its base64 text instead. 404 when there is none yet. Policy Devices_View.',
    parameters: [{ $ref: '#/components/parameters/RegistrationKeyPath' }, { name: 'base64', in: 'query', schema: { type: 'boolean', default: false } }],
    responses: {
      '200': {
        description: 'The screenshot.',
        content: { 'image/jpeg': { schema: { type: 'string', format: 'binary' } }, 'text/plain': { schema: { type: 'string', format: 'byte' } } },
      },
      ...errors(401, 403, 404, 500),
    },
  },
  restOp('getDeviceSnap', {
    document: gql`
      # GET /devices/{registrationKey}/snap: the facade decodes the base64 and answers image/jpeg.
      query getDeviceSnap($registrationKey: String!) {
        device(registrationKey: $registrationKey, limit: 1, includeSnap: true) {
          id
          snap
        }
      }
    `,
    variables: ({ params }) => ({ registrationKey: params.registrationKey }),
    respond(data: GetDeviceSnapQuery, { query }) {
      const snap = deviceByKey(data).snap;
      if (typeof snap !== 'string') throw new AppError('NOT_FOUND', 'the device has sent no screenshot yet');
      if (query.base64 === true) return { body: snap, contentType: 'text/plain; charset=utf-8' };
      return { body: Buffer.from(snap, 'base64'), contentType: 'image/jpeg' };
    },
    accepts: { path: ['registrationKey'], query: ['base64'] },
  }),
);
