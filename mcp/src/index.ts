/** @pylon/mcp: Pylon's MCP server (tools over @pylon/client), remote (http.ts) and local (stdio.main.ts). */
export { createMcpHttp, MCP_PATH, RESOURCE_METADATA_PATH, selfBase, type McpHttpOptions } from './http.js';
export { createPylonMcpServer, SERVER_INFO, type PylonMcpOptions } from './server.js';
export { defineTool, type AnyToolSpec, type ToolSpec } from './tool.js';
export { TOOLS } from './tools/index.js';
