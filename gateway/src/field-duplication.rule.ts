import { GraphQLError, Kind, type ASTVisitor, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext } from 'graphql';

/**
 * Refuses a selection set that asks for the same response key more than `max` times (graphql-cop
 * "Field Duplication": 500 `__typename`). Each repeat is merged at execution but still parsed,
 * validated and planned, and neither the alias nor the cost limit counts it. Inline fragments and
 * fragment spreads count as part of the selection set they sit in; each fragment once, as
 * graphql-js's field collection does.
 */
export function maxFieldDuplicates(max: number) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of context.getDocument().definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const reported = new Set<string>();
    return {
      SelectionSet(node: SelectionSetNode) {
        const counts = new Map<string, number>();
        const visited = new Set<string>();
        const walk = (set: SelectionSetNode) => {
          for (const s of set.selections) {
            if (s.kind === Kind.FIELD) {
              const key = s.alias?.value ?? s.name.value;
              counts.set(key, (counts.get(key) ?? 0) + 1);
            } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet);
            else if (!visited.has(s.name.value)) {
              visited.add(s.name.value);
              const f = fragments.get(s.name.value);
              if (f) walk(f.selectionSet);
            }
          }
        };
        walk(node);
        for (const [key, n] of counts) {
          if (n > max && !reported.has(key)) {
            reported.add(key);
            context.reportError(
              new GraphQLError(`Syntax Error: '${key.slice(0, 50)}' is selected ${n} times in one selection set, the maximum is ${max}.`, {
                nodes: [node],
                extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
              }),
            );
          }
        }
      },
    };
  };
}
