/**
 * Every parameter and body property rest.yaml documents is read by its operation's mapper, and
 * mappers read nothing undocumented. The facade refuses to start otherwise; this test makes
 * `npm test` fail at the same point.
 */
import { checkMapped, documentedInputs, loadRestDocument } from '../src/document.js';
import { REST_OPERATIONS } from '../src/operations/index.js';
import { listOp } from '../src/operations/declare.js';

const { definition } = loadRestDocument();

test('rest.yaml and the mappers agree on every parameter and body property', () => {
  expect(checkMapped(definition, REST_OPERATIONS)).toEqual([]);
});

test('the check sees parameters through $refs and body properties through anyOf', () => {
  const list = documentedInputs(definition, '/devices', 'get');
  expect(list.query).toEqual(expect.arrayContaining(['take', 'page', 'group_id', 'is_online']));
  const create = documentedInputs(definition, '/devices', 'post');
  expect([...(create.body?.names ?? [])]).toEqual(expect.arrayContaining(['name', 'tags', 'group_id']));
});

test('a documented parameter the mapper ignores fails the check', () => {
  const doc = structuredClone(definition);
  const get = (doc.paths!['/devices'] as Record<string, { parameters: unknown[] }>).get!;
  get.parameters.push({ name: 'color', in: 'query', schema: { type: 'string' } });
  expect(checkMapped(doc, REST_OPERATIONS)).toEqual(["listDevices: query parameter 'color' is documented but not mapped"]);
});

test('a body property the mapper ignores, and a mapped name the document lacks, fail the check', () => {
  const ops = { ...REST_OPERATIONS, createDevice: { ...REST_OPERATIONS.createDevice!, accepts: { body: ['name', 'nickname'] } } };
  const problems = checkMapped(definition, ops);
  expect(problems).toContain("createDevice: body property 'tags' is documented but not mapped");
  expect(problems).toContain("createDevice: maps body property 'nickname', which rest.yaml does not document");
});

test('declarative operations declare what they map', () => {
  expect(listOp({ root: 'x', params: { group_id: 'groupId' } }).accepts).toEqual({ query: ['group_id', 'take', 'page'] });
});
