/**
 * `npm test`: every persisted operation (schema/operations/{rest,legacy}, shared fragments appended)
 * parses and validates against the API schema of the committed supergraph.
 */
import { loadOperations } from '../services/kit/src/facade/gateway-client.js';
import { loadApiSchema } from '../services/kit/src/graphql/api-schema.js';
import { checkOperations } from '../services/kit/src/graphql/operations-check.js';

const schema = loadApiSchema();
const problems: string[] = [];
let count = 0;
for (const facade of ['rest', 'legacy'] as const) {
  const ops = loadOperations(facade);
  count += ops.size;
  problems.push(...checkOperations(schema, ops).map((p) => `${facade}/${p}`));
}
if (problems.length) {
  console.error(`persisted operations check failed:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`${count} persisted operations validate against the API schema`);
