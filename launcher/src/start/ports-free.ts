/** Fails fast, before any store opens, when a port `npm start` will listen on is taken. */
import { createServer } from 'node:net';

const probe = (port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen({ port, host, exclusive: true }, () => s.close(() => resolve()));
  });

/** Rejects with the listen error (`code: 'EADDRINUSE'`, `port`) of the first taken port; port 0 is skipped. */
export async function assertPortsFree(ports: number[], host: string): Promise<void> {
  for (const port of ports) if (port > 0) await probe(port, host);
}
