import { AppError, codeFromGraphQL, httpStatus } from '../src/errors.js';
import { loadConfig, ConfigError, envPort, envTrustProxy } from '../src/config.js';
import { z } from 'zod';

test('codes map once to GraphQL and HTTP', () => {
  expect(httpStatus('NOT_FOUND')).toBe(404);
  expect(codeFromGraphQL('UNAUTHENTICATED')).toBe('UNAUTHENTICATED');
  expect(codeFromGraphQL('GRAPHQL_VALIDATION_FAILED')).toBe('VALIDATION_FAILED');
  expect(new AppError('FORBIDDEN', 'no').code).toBe('FORBIDDEN');
});

test('config reports every error at once', () => {
  const schema = z.object({ PORT: envPort(4000), NAME: z.string().min(1) });
  try {
    loadConfig(schema, { PORT: 'x' });
    throw new Error('should fail');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).problems).toHaveLength(2);
  }
});

test('TRUST_PROXY takes booleans, hop counts and address lists', () => {
  const schema = z.object({ TRUST_PROXY: envTrustProxy() });
  expect(loadConfig(schema, {}).TRUST_PROXY).toBe('loopback');
  expect(loadConfig(schema, { TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
  expect(loadConfig(schema, { TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
  expect(loadConfig(schema, { TRUST_PROXY: '10.0.0.0/8,uniquelocal' }).TRUST_PROXY).toBe('10.0.0.0/8,uniquelocal');
});

test('a subgraph called with a wrong variable answers what is wrong, not an internal error', async () => {
  const { buildSchema, execute, parse } = await import('graphql');
  const { toGraphQLError } = await import('../src/graphql/errors.js');
  const schema = buildSchema('input In { csv: String! } type Query { f(i: In!): Int }');
  const r = await execute({ schema, document: parse('query($i: In!) { f(i: $i) }'), variableValues: { i: { csvContent: 'x' } } });
  const errors = (r.errors ?? []).map(toGraphQLError);
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.map((e) => e.message).join(' ')).toMatch(/csvContent|csv/);
  expect(errors.every((e) => e.message !== 'internal error')).toBe(true);
});
