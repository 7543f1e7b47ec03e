/**
 * The live event stream (GET /events/stream, Server-Sent Events) read with fetch, so the bearer
 * token travels in a header (EventSource cannot send one). After a drop it reconnects with the last
 * id seen as Last-Event-ID: the server's durable log resumes right after it, nothing missed, nothing
 * twice; an id the log no longer holds (410) starts afresh.
 */
import { authHeaders } from './api';

export interface PylonEvent {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export interface StreamStatus {
  state: 'connecting' | 'live' | 'reconnecting' | 'forbidden';
  detail?: string;
}

export function followEvents(onEvent: (e: PylonEvent) => void, onStatus: (s: StreamStatus) => void): () => void {
  const abort = new AbortController();
  let lastId: string | undefined;
  let retryMs = 1000;
  const run = async () => {
    while (!abort.signal.aborted) {
      try {
        const res = await fetch('/events/stream', {
          headers: { accept: 'text/event-stream', ...(await authHeaders()), ...(lastId ? { 'last-event-id': lastId } : {}) },
          signal: abort.signal,
        });
        if (res.status === 403) return onStatus({ state: 'forbidden', detail: 'Your role can read none of the event types.' });
        if (res.status === 410) lastId = undefined;
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        onStatus({ state: 'live' });
        retryMs = 1000;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let cut: number;
          while ((cut = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            const data = block
              .split('\n')
              .filter((l) => l.startsWith('data:'))
              .map((l) => l.slice(5).trimStart())
              .join('\n');
            const id = /^id:\s?(.*)$/m.exec(block)?.[1];
            if (id) lastId = id;
            if (data && !/^event:\s?error$/m.test(block)) onEvent(JSON.parse(data) as PylonEvent);
          }
        }
      } catch (e) {
        if (abort.signal.aborted) return;
        onStatus({ state: 'reconnecting', detail: e instanceof Error ? e.message : String(e) });
      }
      if (abort.signal.aborted) return;
      onStatus({ state: 'reconnecting' });
      await new Promise((r) => setTimeout(r, retryMs));
      retryMs = Math.min(retryMs * 2, 15_000);
    }
  };
  onStatus({ state: 'connecting' });
  void run();
  return () => abort.abort();
}
