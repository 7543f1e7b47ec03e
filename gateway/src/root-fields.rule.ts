import { GraphQLError, Kind, type ASTVisitor, type ValidationContext } from 'graphql';

/** Refuses operations that fan out over too many root fields (graphql-armor does not cover this). */
export function maxRootFields(max: number) {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      let count = 0;
      const fragments = new Map(context.getDocument().definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d]] : [])));
      const walk = (selections: readonly { kind: string }[], seen: Set<string>) => {
        for (const s of selections as readonly import('graphql').SelectionNode[]) {
          if (s.kind === Kind.FIELD) {
            if (!s.name.value.startsWith('__')) count++;
          } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet.selections, seen);
          else if (s.kind === Kind.FRAGMENT_SPREAD && !seen.has(s.name.value)) {
            const f = fragments.get(s.name.value);
            if (f) walk(f.selectionSet.selections, new Set([...seen, s.name.value]));
          }
        }
      };
      walk(node.selectionSet.selections, new Set());
      if (count > max) {
        context.reportError(
          new GraphQLError(`Syntax Error: Query has ${count} root fields, the maximum is ${max}.`, {
            nodes: [node],
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          }),
        );
      }
    },
  });
}
