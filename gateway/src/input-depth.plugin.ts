/**
 * Caps how deeply, and how large, a request's input values nest, before any recursive or
 * exponential code sees them: argument literals at validation, variables once the operation is
 * resolved; one pair of limits for both.
 *
 * Variables: graphql-js coerces them recursively, and so do the subgraphs' filter translators; a
 * `where` variable nested a thousand levels deep used to overflow the stack there (answered
 * INTERNAL_SERVER_ERROR).
 * Literals (issue 34, H1): the gateway's query planner walks every argument literal with
 * `collectVariablesInValue` (@apollo/federation-internals 2.14.4), which visits each list twice, so
 * each nested list doubles the planning time: a 280-byte `where` of 22 nested `and` lists took 5 s
 * with the process blocked, and 320 levels (inside the 2,000-token limit) never returned. The
 * token limit bounds a literal's size, not the work its nesting causes, so the validation rule
 * below refuses it before planning (and the patch to that function walks each list once).
 * Both walks are iterative (an explicit stack) and answer 400 naming the argument or variable.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, Kind, type ASTVisitor, type ValueNode, type ValidationContext } from 'graphql';

/**
 * Levels of lists and objects an input value may nest. Every filter needs fewer: kit's MAX_DEPTH 8
 * of `and`/`or` is 17 levels, 19 with its leaf condition. The planner patch
 * (patches/@apollo__federation-internals@2.14.4.patch) makes a literal's cost linear; this cap
 * keeps every recursive walk after it (coercion, the subgraphs' translators) short as well.
 */
export const MAX_INPUT_DEPTH = 24;
/** Values (scalars, lists, objects) one argument or variable may hold: a 100-row, 200-column batch is ~20,000. */
export const MAX_INPUT_VALUES = 50_000;

type Caps = { depth: number; values: number };
/** The caps every walk here applies unless told otherwise. */
export const INPUT_CAPS: Readonly<Caps> = { depth: MAX_INPUT_DEPTH, values: MAX_INPUT_VALUES };

/**
 * The depth and the number of values of a tree whose nodes' children `children` gives (null: a
 * leaf), walked iteratively; stops past either cap.
 */
export function shapeOf<T>(root: T, children: (node: T) => readonly T[] | null, caps: Caps = INPUT_CAPS): { depth: number; values: number } {
  let depth = 0;
  let values = 0;
  const stack: [T, number][] = [[root, 0]];
  while (stack.length && depth <= caps.depth && values <= caps.values) {
    const [v, d] = stack.pop()!;
    values++;
    const kids = children(v);
    if (!kids) continue;
    if (d + 1 > depth) depth = d + 1;
    for (const child of kids) stack.push([child, d + 1]);
  }
  return { depth, values };
}

/** A JSON value's children: an array's items, an object's values. */
const jsonChildren = (v: unknown): readonly unknown[] | null => (typeof v !== 'object' || v === null ? null : Array.isArray(v) ? v : Object.values(v));
/** A GraphQL value literal's children (a variable inside it is one value, a leaf). */
const literalChildren = (v: ValueNode): readonly ValueNode[] | null =>
  v.kind === Kind.LIST ? v.values : v.kind === Kind.OBJECT ? v.fields.map((f) => f.value) : null;

/** What is wrong with a value of this shape, or null. */
function shapeProblem(what: string, shape: { depth: number; values: number }, caps: Caps): string | null {
  if (shape.depth > caps.depth) return `${what} is nested too deeply (more than ${caps.depth} levels of lists and objects)`;
  if (shape.values > caps.values) return `${what} holds too many values (more than ${caps.values})`;
  return null;
}

/** Validation rule: every argument literal (fields and directives) and variable default within the caps. */
export function maxInputShape(caps: Caps = INPUT_CAPS) {
  return (context: ValidationContext): ASTVisitor => ({
    Argument(node) {
      const problem = shapeProblem(`argument "${node.name.value}"`, shapeOf(node.value, literalChildren, caps), caps);
      if (problem) context.reportError(new GraphQLError(problem, { nodes: [node], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }));
    },
    VariableDefinition(node) {
      if (!node.defaultValue) return;
      const problem = shapeProblem(`the default of $${node.variable.name.value}`, shapeOf(node.defaultValue, literalChildren, caps), caps);
      if (problem) context.reportError(new GraphQLError(problem, { nodes: [node], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }));
    },
  });
}

export function inputDepthPlugin<C extends object>(caps: Caps = INPUT_CAPS): ApolloServerPlugin<C> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request }) {
          for (const [name, value] of Object.entries(request.variables ?? {})) {
            const problem = shapeProblem(`variable $${name}`, shapeOf<unknown>(value, jsonChildren, caps), caps);
            if (problem) throw new GraphQLError(problem, { extensions: { code: 'BAD_USER_INPUT', field: name, http: { status: 400 } } });
          }
        },
      };
    },
  };
}
