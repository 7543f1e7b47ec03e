/**
 * Persisted operations checked against the API schema: every document (its shared fragments
 * appended, as `loadOperations` serves it) must parse, hold exactly one operation, and pass
 * graphql-js validation, so a field or argument that does not exist (`intervall` for `interval`)
 * fails `npm test` instead of failing a user's request.
 */
import { Kind, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema } from 'graphql';

/** Every problem of one set of operations, as `<operationId>: <message>`; empty when all are valid. */
export function checkOperations(schema: GraphQLSchema, operations: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [id, text] of operations) {
    let doc: DocumentNode;
    try {
      doc = parse(text);
    } catch (e) {
      problems.push(`${id}: does not parse: ${(e as Error).message}`);
      continue;
    }
    const ops = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    if (ops.length !== 1) problems.push(`${id}: holds ${ops.length} operations, a persisted operation holds exactly one`);
    for (const err of validate(schema, doc, specifiedRules)) {
      const at = err.locations?.[0];
      problems.push(`${id}${at ? ` (line ${at.line})` : ''}: ${err.message}`);
    }
  }
  return problems;
}
