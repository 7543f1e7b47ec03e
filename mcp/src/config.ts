/** The stdio server's settings (npm run mcp): where Pylon answers and the API key it acts with. */
import { z } from 'zod';

export const stdioEnv = z.object({
  PYLON_URL: z.string().url().default('http://127.0.0.1:4000').describe("Pylon's base URL"),
  PYLON_API_KEY: z.string().min(16, 'PYLON_API_KEY must be a Pylon API key (pyl_...)').describe('The API key every tool call acts with'),
  PYLON_DOCS_DIR: z.string().optional(),
});

export type StdioEnv = z.infer<typeof stdioEnv>;

/** The settings, or every problem in one message (never echoing a value: the key is a secret). */
export function parseStdioEnv(env: Record<string, string | undefined>): { ok: true; env: StdioEnv } | { ok: false; message: string } {
  const r = stdioEnv.safeParse(env);
  if (r.success) return { ok: true, env: r.data };
  return { ok: false, message: `invalid settings for npm run mcp:\n${r.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}` };
}
