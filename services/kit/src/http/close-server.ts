/**
 * Stops an HTTP server for a shutdown: it stops accepting, closes idle keep-alive connections, lets
 * requests in flight finish for up to `drainMs`, then closes the connections still open. Without
 * that last step one slow reader holds the stop for ever: a browser's <video> that has buffered
 * enough stops reading its file's response, and an SSE or long-poll client that reconnects on the
 * same keep-alive connection keeps a request open (seen with the web player: the all-in-one did
 * not stop within 15 s). Resolves when the server has closed.
 */
import type { Server } from 'node:http';

export const DEFAULT_DRAIN_MS = 5000;

export function closeHttpServer(server: Server, drainMs = DEFAULT_DRAIN_MS): Promise<void> {
  return new Promise<void>((resolve) => {
    const late = setTimeout(() => server.closeAllConnections(), drainMs);
    late.unref();
    server.close(() => {
      clearTimeout(late);
      resolve();
    });
    server.closeIdleConnections();
  });
}
