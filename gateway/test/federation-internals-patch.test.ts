/**
 * patches/@apollo__federation-internals@2.14.4.patch (pnpm-workspace.yaml patchedDependencies): the
 * query planner's collectVariablesInValue walks a list once. Unpatched, it walked each list twice
 * (as a list, then again as an object), so every nested list doubled the planning time (issue 34,
 * H1). Counted, not timed: the collector sees the one variable at the bottom of 20 nested lists
 * once (unpatched: 2^20 times). Loaded as the gateway loads it.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const internals = require(require.resolve('@apollo/federation-internals', { paths: [require.resolve('@apollo/gateway')] })) as {
  Variable: new (name: string) => unknown;
  collectVariablesInValue: (value: unknown, collector: { add(v: unknown): void }) => void;
};

test('a variable under 20 nested lists (and objects) is visited once', () => {
  let value: unknown = new internals.Variable('v');
  for (let i = 0; i < 20; i++) value = i % 2 ? [value] : { and: [value] };
  let visits = 0;
  internals.collectVariablesInValue(value, { add: () => void visits++ });
  expect(visits).toBe(1);
});
