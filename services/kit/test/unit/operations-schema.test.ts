/** Persisted operations against the composed API schema: what `npm test` checks, and that a typo fails it. */
import { loadOperations } from '../../src/facade/gateway-client.js';
import { loadApiSchema } from '../../src/graphql/api-schema.js';
import { checkOperations } from '../../src/graphql/operations-check.js';

const schema = loadApiSchema();

test.each(['rest', 'legacy'] as const)('every %s operation validates against the API schema', (facade) => {
  const ops = loadOperations(facade);
  expect(ops.size).toBeGreaterThan(0);
  expect(checkOperations(schema, ops)).toEqual([]);
});

test('the API schema hides the federation machinery', () => {
  expect(schema.getQueryType()?.getFields()._entities).toBeUndefined();
  expect(schema.getType('join__Graph')).toBeUndefined();
  expect(schema.getQueryType()?.getFields().device).toBeDefined();
});

test('a misspelt field fails: intervall for interval', () => {
  const typo = new Map([['listPlaylists', '{ playlist(limit: 1) { id sources { id intervall } } }']]);
  expect(checkOperations(schema, typo)).toEqual([
    expect.stringMatching(/^listPlaylists \(line 1\): Cannot query field "intervall" on type "PlaylistSource"\. Did you mean "interval"\?/),
  ]);
  const ok = new Map([['listPlaylists', '{ playlist(limit: 1) { id sources { id interval } } }']]);
  expect(checkOperations(schema, ok)).toEqual([]);
});

test('an unknown argument, a wrong argument type, a parse error and two operations in one document each fail', () => {
  const problems = checkOperations(
    schema,
    new Map([
      ['unknownArg', '{ device(limitt: 2) { id } }'],
      ['wrongType', '{ device(limit: "two") { id } }'],
      ['broken', '{ device { id }'],
      ['two', 'query A { device { id } } query B { device { name } }'],
    ]),
  );
  expect(problems).toEqual([
    expect.stringMatching(/^unknownArg .*Unknown argument "limitt" on field "Query\.device"/),
    expect.stringMatching(/^wrongType .*Int cannot represent non-integer value: "two"/),
    expect.stringMatching(/^broken: does not parse/),
    'two: holds 2 operations, a persisted operation holds exactly one',
  ]);
});
