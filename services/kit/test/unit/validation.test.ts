/** parseInput: zod problems become BAD_USER_INPUT naming the field at fault. */
import { z } from 'zod';
import { AppError } from '../../src/errors.js';
import { parseInput } from '../../src/validation.js';

const schema = z.strictObject({
  name: z.string().min(1).max(5),
  location: z.strictObject({ latitude: z.number().min(-90).max(90) }).optional(),
  tags: z.array(z.string()).max(2).optional(),
  kind: z.enum(['a', 'b']).optional(),
});

const failure = (value: unknown, prefix = '') => {
  try {
    parseInput(schema, value, prefix);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    const err = e as AppError;
    return { code: err.code, message: err.message, field: err.details.field };
  }
  throw new Error('parsed');
};

test('valid input comes back parsed', () => {
  expect(parseInput(schema, { name: 'abc', tags: ['x'] })).toEqual({ name: 'abc', tags: ['x'] });
});

test.each([
  [{}, 'name is required', 'name'],
  [{ name: '' }, 'name must not be empty', 'name'],
  [{ name: 'abcdef' }, 'name must be at most 5 characters', 'name'],
  [{ name: 'a', location: { latitude: 91 } }, 'location.latitude must be at most 90', 'location.latitude'],
  [{ name: 'a', tags: ['x', 'y', 'z'] }, 'tags must hold at most 2 item(s)', 'tags'],
  [{ name: 'a', tags: [1] }, 'tags[0] must be a string', 'tags[0]'],
  [{ name: 'a', kind: 'c' }, 'kind must be one of: a, b', 'kind'],
  [{ name: 'a', foo: 1 }, "unknown field 'foo'", 'foo'],
])('%j: %s', (value, message, field) => {
  expect(failure(value)).toEqual({ code: 'BAD_USER_INPUT', message, field });
});

test('a prefix names the input object', () => {
  expect(failure({ name: 7 }, 'commands[0]')).toEqual({ code: 'BAD_USER_INPUT', message: 'commands[0].name must be a string', field: 'commands[0].name' });
});
