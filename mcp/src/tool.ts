/**
 * A tool as data: its name, what an agent reads (description, typed input and output), whether it
 * writes, and a run function over a @pylon/client that carries the caller's credentials. Every
 * call goes through `register` below, which is where the shared rules live once:
 *   - the client a tool gets names the tool in X-Pylon-Tool, so each API call it makes is in the
 *     audit trail as `mcp:<tool> ...` under the caller's own principal;
 *   - an error is a tool result with isError (code and message), never a thrown protocol error,
 *     so the agent can read it and correct itself;
 *   - a destructive tool (DestructiveTool) first answers what it would do and to what, and acts
 *     only when called again with `confirm: true`.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { describeError, type PylonClient, type PylonError, type Result } from '@pylon/client';

/** What a tool run answers: its structured output, or the API's error. */
export type ToolResult<O> = Result<O>;

export interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  title: string;
  /** What it does, when to use it, its limits: an agent decides from this alone. */
  description: string;
  input: I;
  output: O;
  /** read: no change; write: creates or edits; destructive: disrupts screens or removes data (needs confirm). */
  kind: 'read' | 'write' | 'destructive';
  run(client: PylonClient, input: z.infer<z.ZodObject<I>>): Promise<ToolResult<z.infer<z.ZodObject<O>>>>;
}

// The generic parameters are erased in the list of tools; each spec was checked where it was written.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolSpec = ToolSpec<any, any>;

export const defineTool = <I extends z.ZodRawShape, O extends z.ZodRawShape>(spec: ToolSpec<I, O>): ToolSpec<I, O> => spec;

/** The confirm argument every destructive tool takes. */
export const confirmArg = z
  .boolean()
  .optional()
  .describe('Must be true to act. Without it the tool only states what it would change and to which screens or rows, and changes nothing.');

/** What a destructive tool answers when called without confirm: the scope, nothing done. */
export const needsConfirm = (scope: string): Result<never> => ({
  ok: false,
  error: { kind: 'payload', code: 'CONFIRMATION_REQUIRED', message: `${scope} Nothing was changed; call again with confirm: true to do it.` },
});

/** A refusal decided by the tool itself (bad range, foreign ids), in the API's error shape. */
export const refuse = (code: string, message: string): Result<never> => ({ ok: false, error: { kind: 'payload', code, message } });

export const errorResult = (e: PylonError): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: describeError(e) }],
});

/** Registers a tool on the server; `clientFor(tool)` gives the caller's client labelled with the tool's name. */
export function register(server: McpServer, spec: AnyToolSpec, clientFor: (tool: string) => PylonClient): void {
  server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema: spec.input,
      outputSchema: spec.output,
      annotations: {
        title: spec.title,
        readOnlyHint: spec.kind === 'read',
        destructiveHint: spec.kind === 'destructive',
        openWorldHint: false,
      },
    },
    async (input: unknown): Promise<CallToolResult> => {
      const result = await spec.run(clientFor(spec.name), input as never);
      if (!result.ok) return errorResult(result.error);
      return { structuredContent: result.value as Record<string, unknown>, content: [{ type: 'text', text: JSON.stringify(result.value) }] };
    },
  );
}
