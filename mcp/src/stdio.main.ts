/**
 * `npm run mcp`: the local MCP server over stdio, for a desktop client that starts it as a command.
 * Acts with PYLON_API_KEY against PYLON_URL. stdout is the protocol's: everything else goes to
 * stderr, and the key is never written anywhere.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createPylonClient } from '@pylon/client';
import { parseStdioEnv } from './config.js';
import { createPylonMcpServer } from './server.js';

const parsed = parseStdioEnv(process.env);
if (!parsed.ok) {
  process.stderr.write(`${parsed.message}\n`);
  process.exit(1);
}
const env = parsed.env;
const client = createPylonClient({ baseUrl: env.PYLON_URL, auth: { apiKey: env.PYLON_API_KEY } });
const server = createPylonMcpServer({ client, docsDir: env.PYLON_DOCS_DIR });
await server.connect(new StdioServerTransport());
process.stderr.write(`pylon mcp: serving ${env.PYLON_URL} over stdio\n`);
const stop = () => void server.close().finally(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
