/** Validation details of union (anyOf/oneOf) bodies: only the closest branch's problem is reported. */
import { Ajv } from 'ajv';
import { detailsOf } from '../src/validation.js';

const ajv = new Ajv({ allErrors: true, strict: false });
// The shape of the reference's ScheduleRequest.devices (nullable array of objects with an id), under requestBody.
const validate = ajv.compile({
  type: 'object',
  properties: {
    requestBody: {
      type: 'object',
      properties: {
        devices: { anyOf: [{ type: 'array', items: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } }, { type: 'null' }] },
        target: { oneOf: [{ type: 'string' }, { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] }] },
      },
    },
  },
});
const details = (body: unknown) => {
  expect(validate({ requestBody: body })).toBe(false);
  return detailsOf(validate.errors ?? []);
};

test('a wrong guess at an anyOf body names the closest branch problem only', () => {
  expect(details({ devices: ['d1'] })).toEqual([{ field: 'devices[0]', in: 'body', message: 'devices[0] must be object' }]);
  expect(details({ devices: [{ name: 'x' }] })).toEqual([{ field: 'devices[0].id', in: 'body', message: 'devices[0].id is required' }]);
});

test('a value matching no branch at all still gets one answer, not one per branch', () => {
  const d = details({ devices: 'd1' });
  expect(d).toHaveLength(1);
  expect(d[0]!.field).toBe('devices');
});

test('oneOf likewise', () => {
  expect(details({ target: { id: 'x' } })).toEqual([{ field: 'target.id', in: 'body', message: 'target.id must be integer' }]);
});
