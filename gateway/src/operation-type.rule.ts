import { GraphQLError, type ASTVisitor, type ValidationContext } from 'graphql';

/**
 * Refuses an operation whose type the schema does not have (a `subscription`: Pylon has none).
 * graphql-js's validation leaves this to execution, and the gateway's planner answered it as a 500
 * INVALID_GRAPHQL (issue 34, L1); as a validation error it is a 400 that says what to use instead.
 */
export function knownOperationType() {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      if (context.getSchema().getRootType(node.operation)) return;
      const instead = node.operation === 'subscription' ? ' (push events: GET /events/stream or webhooks)' : '';
      context.reportError(
        new GraphQLError(`This API has no ${node.operation} operations${instead}.`, { nodes: [node], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
      );
    },
  });
}
