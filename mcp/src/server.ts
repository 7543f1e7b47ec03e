/**
 * The MCP server over one caller's client: the tools (tools/index.ts) and the resources an agent
 * reads to understand Pylon (the GraphQL schema, the REST description, the docs pages). Built per
 * caller: over HTTP one per request (stateless), over stdio one per process, so a server never
 * holds anyone else's credentials.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { PylonClient } from '@pylon/client';
import { register, type AnyToolSpec } from './tool.js';
import { TOOLS } from './tools/index.js';

export const SERVER_INFO = { name: 'pylon', version: '0.1.0' } as const;

/** The docs pages shipped beside the server (the repository's docs/ and README.md). */
export const DEFAULT_DOCS_DIR = new URL('../../docs/', import.meta.url).pathname;

export interface PylonMcpOptions {
  /** The caller's client (its credentials); each tool gets it labelled with the tool's name. */
  client: PylonClient;
  /** Where the Markdown docs pages are (default the repository's docs/). */
  docsDir?: string | undefined;
  /** Another tool list (tests, or a deployment that offers fewer). */
  tools?: readonly AnyToolSpec[] | undefined;
}

const INSTRUCTIONS = `Pylon manages digital-signage screens (devices), their content (media, playlists, templates), schedules, data tables and analytics.
Every call acts as you, with your permissions, and is recorded in the account's audit trail with the tool's name.
Start with find_screens to turn names into screen ids; explain_screen says what a screen plays and why; screen_timeline its coming hours.
Tools that disrupt screens or delete data answer what they would do first and act only with confirm: true.
The resources hold the GraphQL schema, the REST description and the documentation.`;

function docsPages(dir: string): { path: string; file: string }[] {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.md') ? [join(d, e.name)] : []));
  try {
    return walk(dir)
      .map((file) => ({ path: relative(dir, file), file }))
      .sort((a, b) => a.path.localeCompare(b.path));
  } catch {
    return [];
  }
}

export function createPylonMcpServer(o: PylonMcpOptions): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS });
  for (const tool of o.tools ?? TOOLS) register(server, tool, (name) => o.client.withHeaders({ 'x-pylon-tool': name }));

  const fromApi = (path: string, mimeType: string) => async (uri: URL) => {
    const res = await o.client.withHeaders({ 'x-pylon-tool': 'read_resource' }).fetch(path);
    if (!res.ok) throw new Error(`${uri.href}: the server answered ${res.status}`);
    return { contents: [{ uri: uri.href, mimeType, text: await res.text() }] };
  };
  server.registerResource(
    'graphql-schema',
    'pylon://schema/graphql',
    { title: 'GraphQL schema', description: "The API's GraphQL schema (SDL) with every field's description and policy.", mimeType: 'text/plain' },
    fromApi('/graphql/?sdl', 'text/plain'),
  );
  server.registerResource(
    'rest-openapi',
    'pylon://schema/openapi',
    { title: 'REST API (OpenAPI)', description: 'The REST operations, parameters and bodies, as OpenAPI 3.', mimeType: 'application/json' },
    fromApi('/openapi.json', 'application/json'),
  );
  for (const page of docsPages(o.docsDir ?? DEFAULT_DOCS_DIR)) {
    const text = readFileSync(page.file, 'utf8');
    const title = /^#\s+(.+)$/m.exec(text)?.[1] ?? page.path;
    server.registerResource(
      `docs/${page.path}`,
      `pylon://docs/${page.path}`,
      { title, description: `Pylon documentation: ${title}`, mimeType: 'text/markdown' },
      async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: readFileSync(page.file, 'utf8') }] }),
    );
  }
  return server;
}
