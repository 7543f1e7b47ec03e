/**
 * Caps how deeply a request's variables nest, before any recursive code sees them.
 *
 * graphql-js coerces variables recursively, and so do the subgraphs' filter translators: a `where`
 * variable nested a thousand levels deep used to overflow the stack there (answered
 * INTERNAL_SERVER_ERROR). This walk is iterative (an explicit stack), runs once the operation is
 * resolved and before execution, and answers 400 BAD_USER_INPUT naming the variable. Literal
 * arguments need no check: the parser's token limit bounds their nesting far below this cap.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';

/** JSON levels (objects and lists) a variable may nest: every filter input needs far fewer (kit MAX_DEPTH 8 is 16 levels). */
export const MAX_VARIABLE_DEPTH = 64;

/** The depth of a JSON value, walked iteratively; stops counting past `cap`. */
export function jsonDepth(value: unknown, cap: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    const d = depth + 1;
    if (d > max) max = d;
    if (max > cap) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, d]);
  }
  return max;
}

export function inputDepthPlugin<C extends object>(maxDepth = MAX_VARIABLE_DEPTH): ApolloServerPlugin<C> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request }) {
          for (const [name, value] of Object.entries(request.variables ?? {})) {
            if (jsonDepth(value, maxDepth) > maxDepth) {
              throw new GraphQLError(`variable $${name} is nested too deeply (more than ${maxDepth} levels)`, {
                extensions: { code: 'BAD_USER_INPUT', field: name, http: { status: 400 } },
              });
            }
          }
        },
      };
    },
  };
}
