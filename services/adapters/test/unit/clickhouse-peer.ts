/**
 * A scripted HTTP peer on loopback that answers the real @clickhouse/client as a ClickHouse server
 * documents it does (https://clickhouse.com/docs/interfaces/http): errors before any output as an
 * error status with X-ClickHouse-Exception-Code and `Code: N. DB::Exception: ... (NAME)` as the
 * body; an error after a progress header (send_progress_in_http_headers) as a 200 whose body ends
 * in the exception, as plain text (before 25.11) or framed with the X-ClickHouse-Exception-Tag
 * (from 25.11). Each test scripts the answer per request; the peer records what it was sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PeerRequest {
  /** The statement (from the body, the multipart `query` part, or the `query` URL parameter of an insert). */
  sql: string;
  /** URL parameters: the settings the client sent. */
  params: URLSearchParams;
  /** The request body when it carried data (an insert), else ''. */
  data: string;
}

export type PeerAnswer =
  | { kind: 'ok'; body?: string; progress?: boolean }
  /** An error before any output: the status and header ClickHouse sends with it. */
  | { kind: 'error'; status: number; code: number; name: string; message: string }
  /** A 200 with a progress header sent first, then the exception at the end of the body. */
  | { kind: 'late-error'; code: number; name: string; message: string; tagged?: boolean; bodyBefore?: string };

export const exceptionText = (code: number, name: string, message: string) =>
  `Code: ${code}. DB::Exception: ${message}. (${name}) (version 24.8.4.13 (official build))\n`;

export interface Peer {
  url: string;
  requests: PeerRequest[];
  close(): Promise<void>;
}

function statementOf(req: IncomingMessage, params: URLSearchParams, body: string): { sql: string; data: string } {
  const urlQuery = params.get('query');
  if (urlQuery !== null) return { sql: urlQuery, data: body };
  const type = req.headers['content-type'] ?? '';
  const boundary = /boundary=(.+)$/.exec(type)?.[1];
  if (boundary) {
    const m = /name="query"\r\n\r\n([\s\S]*?)\r\n--/.exec(body);
    return { sql: m?.[1] ?? '', data: '' };
  }
  return { sql: body, data: '' };
}

export async function startPeer(script: (r: PeerRequest) => PeerAnswer): Promise<Peer> {
  const requests: PeerRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const params = new URL(req.url ?? '/', 'http://peer').searchParams;
      const { sql, data } = statementOf(req, params, Buffer.concat(chunks).toString('utf8'));
      const request = { sql, params, data };
      requests.push(request);
      const answer = script(request);
      const common = { 'X-ClickHouse-Query-Id': params.get('query_id') ?? 'q', 'X-ClickHouse-Server-Display-Name': 'peer' };
      const progress = { 'X-ClickHouse-Progress': '{"read_rows":"1000","read_bytes":"8000","written_rows":"0","total_rows_to_read":"90000"}' };
      if (answer.kind === 'ok') {
        res.writeHead(200, { ...common, ...(answer.progress ? progress : {}), 'Content-Type': 'text/plain; charset=UTF-8' });
        res.end(answer.body ?? '');
        return;
      }
      if (answer.kind === 'error') {
        res.writeHead(answer.status, { ...common, 'X-ClickHouse-Exception-Code': String(answer.code), 'Content-Type': 'text/plain; charset=UTF-8' });
        res.end(exceptionText(answer.code, answer.name, answer.message));
        return;
      }
      // The status line goes out with the first progress header; the statement fails afterwards.
      const tag = 'pxqkzmwtrbnvhsdl';
      res.writeHead(200, {
        ...common,
        ...progress,
        ...(answer.tagged ? { 'X-ClickHouse-Exception-Tag': tag } : {}),
        'Content-Type': 'text/plain; charset=UTF-8',
      });
      res.flushHeaders();
      setTimeout(() => {
        const text = exceptionText(answer.code, answer.name, answer.message);
        res.write(answer.bodyBefore ?? '');
        // 25.11's framing (the client's extractErrorAtTheEndOfChunk documents it): the length counts the message's newline.
        res.end(answer.tagged ? `\r\n__exception__\r\n${tag}\r\n${text}${Buffer.byteLength(text)} ${tag}\r\n__exception__\r\n` : text);
      }, 20);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
