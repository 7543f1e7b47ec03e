/**
 * /power-schedules and /devices/{id}/power: power schedules (list, get, set, delete) and a device's
 * display by its schedule, onto the power queries and mutations. Bodies are snake_case like every
 * REST body.
 */
import { AppError } from '@pylon/kit';
import { answers, arrayOf, byId, jsonBody, md, params, ref, route } from './route.js';
import type { ItemOf, RestSchema, SomeInputOf } from './types.js';
import { fieldOf, isRecord, listOf, objectBody, payloadOf } from './shape.js';
import { byIdGetOp, restOp } from './declare.js';
import { gql } from './gql.js';

type PowerData = ItemOf<'getPowerSchedule', 'powerSchedule'>;

export const toRestPowerSchedule = (s: PowerData): RestSchema<'PowerSchedule'> => ({
  id: s.id,
  name: s.name,
  scope: s.scope,
  target: s.target,
  windows: s.windows.map((w) => ({ weekdays: w.weekdays, on: w.on, off: w.off })),
  exceptions: s.exceptions.map((e) => ({ date: e.date, windows: e.windows.map((h) => ({ on: h.on, off: h.off })) })),
  created_on: s.createdOn,
  updated_on: s.updatedOn,
});

/** REST body -> PowerScheduleInput (shape checked by rest.yaml's schema first; values by the use case). */
function powerInput(raw: unknown): SomeInputOf<'setPowerSchedule'> {
  const body = objectBody(raw);
  const t = isRecord(body.target) ? body.target : {};
  return {
    name: body.name,
    target: { deviceId: t.device_id, groupId: t.group_id, tag: t.tag },
    windows: body.windows,
    exceptions: body.exceptions,
  };
}

const TAGS = ['Power schedules'];
const NAMES = { input: 'body', id: 'id', deviceId: 'id', at: 'at' };

export const listPowerSchedules = route(
  'GET /power-schedules',
  {
    tags: TAGS,
    summary: "The account's power schedules.",
    description: 'One per device, device group or tag, by scope then target. Policy Schedules_View.',
    responses: answers('The power schedules (possibly none).', arrayOf('PowerSchedule'), 401, 403, 429, 500, 503),
  },
  restOp('listPowerSchedules', {
    document: gql`
      # GET /power-schedules: the account's power schedules.
      query listPowerSchedules {
        powerSchedules {
          ...RestPowerSchedule
        }
      }
    `,
    variables: () => ({}),
    respond: (data) => ({ body: listOf(data, 'powerSchedules').map(toRestPowerSchedule) }),
    fieldNames: NAMES,
    accepts: {},
  }),
);

export const getPowerSchedule = route(
  'GET /power-schedules/{id}',
  {
    tags: TAGS,
    summary: 'One power schedule.',
    description: '404 when the account has no power schedule with this id. Policy Schedules_View.',
    ...byId('The power schedule.', 'PowerSchedule', 400, 401, 403, 404, 429, 500, 503),
  },
  byIdGetOp('getPowerSchedule', {
    from: 'nullable',
    root: 'powerSchedule',
    fragment: 'RestPowerSchedule',
    what: 'power schedule',
    toRest: toRestPowerSchedule,
  }),
);

export const setPowerSchedule = route(
  'POST /power-schedules',
  {
    tags: TAGS,
    summary: 'Sets the power schedule of a device, device group or tag.',
    description: md(
      'Replaces the one its target had. The display is on in the windows (weekdays, `on` and `off` as',
      'HH:MM in the device time zone, the account zone when the device has none; `off` at or before `on`',
      'runs past midnight) and on exception dates in their hours instead (none: off all day). Screens get',
      'display_on / display_off at the edges. Every refusal names its field. Policy Schedules_Edit.',
    ),
    requestBody: jsonBody('PowerScheduleRequest'),
    responses: answers('The power schedule.', ref('PowerSchedule'), 400, 401, 403, 429, 500, 503),
  },
  restOp('setPowerSchedule', {
    document: { root: 'setPowerSchedule', record: 'powerSchedule' },
    variables: (input) => ({ input: powerInput(input.body) }),
    respond: (data) => ({ body: toRestPowerSchedule(fieldOf(payloadOf(data, 'setPowerSchedule', NAMES), 'powerSchedule')) }),
    fieldNames: NAMES,
    accepts: { body: ['name', 'target', 'windows', 'exceptions'] },
  }),
);

export const deletePowerSchedule = route(
  'DELETE /power-schedules/{id}',
  {
    tags: TAGS,
    summary: 'Deletes a power schedule.',
    description: 'Its screens fall back to the next schedule that applies, or stay on. 404 for an unknown id. Policy Schedules_Edit.',
    ...byId('The deleted power schedule.', 'PowerSchedule', 400, 401, 403, 404, 429, 500, 503),
  },
  restOp('deletePowerSchedule', {
    document: { root: 'deletePowerSchedule', record: 'powerSchedule' },
    variables: (input) => ({ id: input.params.id }),
    respond: (data) => ({ body: toRestPowerSchedule(fieldOf(payloadOf(data, 'deletePowerSchedule', NAMES), 'powerSchedule')) }),
    fieldNames: NAMES,
    accepts: { path: ['id'] },
  }),
);

export const getDevicePower = route(
  'GET /devices/{id}/power',
  {
    tags: TAGS,
    summary: "A device's display by its power schedule.",
    description: md(
      'Whether the display is on at `at` (default now), until when, in which time zone, under which',
      'schedule (its own, its group or a parent group, its first tag by name; none: always on), and why',
      'in words. 404 when the account has no such device. Policy Schedules_View.',
    ),
    parameters: [
      ...params('IdPath'),
      { name: 'at', in: 'query', required: false, description: 'ISO 8601 instant; default now.', schema: { type: 'string', maxLength: 40 } },
    ],
    responses: answers("The device's display.", ref('DevicePower'), 400, 401, 403, 404, 429, 500, 503),
  },
  restOp('getDevicePower', {
    document: gql`
      # GET /devices/{id}/power: the device's display by its power schedule.
      query getDevicePower($deviceId: ID!, $at: String) {
        devicePower(deviceId: $deviceId, at: $at) {
          at
          timezone
          displayOn
          until
          reason
          schedule {
            ...RestPowerSchedule
          }
        }
      }
    `,
    variables: (input) => ({ deviceId: input.params.id, at: input.query.at }),
    nullableRoots: ['devicePower'],
    respond(data, input) {
      const p = data.devicePower;
      if (!p) throw new AppError('NOT_FOUND', 'device was not found', { field: 'id' });
      return {
        body: {
          device_id: String(input.params.id),
          at: p.at,
          timezone: p.timezone,
          display_on: p.displayOn,
          until: p.until ?? null,
          reason: p.reason,
          schedule: p.schedule ? toRestPowerSchedule(p.schedule) : null,
        },
      };
    },
    fieldNames: NAMES,
    accepts: { path: ['id'], query: ['at'] },
  }),
);
