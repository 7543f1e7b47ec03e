/**
 * MongoDB outages answer UNAVAILABLE (503) within bounded time, not an internal error after the
 * driver's 30 s default: the classifier against the driver's own error classes, a server that
 * cannot be reached at all (runs here), and a connection cut while serving (needs MONGO_URL).
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import mongoose from 'mongoose';
import { AppError } from '@pylon/kit/errors';
import { createMongoDocumentStore } from '../../src/mongo/documents.mongo.js';
import { isMongoUnavailable } from '../../src/mongo/errors.mongo.js';

const { MongoNetworkError, MongoNetworkTimeoutError, MongoServerError, MongoServerSelectionError } = mongoose.mongo;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

async function unavailableWithin<T>(p: Promise<T>, ms: number): Promise<void> {
  const started = Date.now();
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe('UNAVAILABLE');
  expect((err as AppError).message).not.toMatch(/mongo/i);
  expect(Date.now() - started).toBeLessThan(ms);
}

describe('documents.mongo outages', () => {
  test('network, selection, election and shutdown errors of the driver are outages; others are not', () => {
    expect(isMongoUnavailable(new MongoNetworkError('connection reset'))).toBe(true);
    expect(isMongoUnavailable(new MongoNetworkTimeoutError('timed out'))).toBe(true);
    expect(isMongoUnavailable(new MongoServerSelectionError('no primary', {} as never))).toBe(true);
    for (const code of [10107, 13435, 13436, 11602, 11600, 189, 91]) {
      expect(isMongoUnavailable(new MongoServerError({ message: 'state change', code }))).toBe(true);
    }
    expect(isMongoUnavailable(new MongoServerError({ message: 'not primary' }))).toBe(true);
    expect(isMongoUnavailable(new MongoServerError({ message: 'E11000 duplicate key', code: 11000 }))).toBe(false);
    expect(isMongoUnavailable(new MongoServerError({ message: 'bad filter', code: 2 }))).toBe(false);
    expect(isMongoUnavailable(new Error('not primary'))).toBe(false);
  });

  test('a server that cannot be reached answers UNAVAILABLE within the selection timeout', async () => {
    const port = await freePort();
    await unavailableWithin(
      createMongoDocumentStore({ url: `mongodb://127.0.0.1:${port}/pylon?directConnection=true`, serverSelectionTimeoutMS: 800 }),
      10_000,
    );
  }, 30_000);

  const url = process.env.MONGO_URL;
  (url ? test : test.skip)(
    'a connection cut while serving answers UNAVAILABLE within the timeouts, then recovers',
    async () => {
      const target = new URL((url as string).replace(/^mongodb:\/\//, 'http://'));
      const sockets = new Set<Socket>();
      let proxy: Server = createServer();
      const listen = (port: number) =>
        new Promise<void>((r) => {
          proxy = createServer((client) => {
            const upstream = connect(Number(target.port || 27017), target.hostname);
            sockets.add(client).add(upstream);
            client.pipe(upstream).pipe(client);
            const end = () => {
              client.destroy();
              upstream.destroy();
            };
            client.on('error', end).on('close', end);
            upstream.on('error', end).on('close', end);
          });
          proxy.listen(port, '127.0.0.1', r);
        });
      const port = await freePort();
      await listen(port);
      const store = await createMongoDocumentStore({
        url: `mongodb://127.0.0.1:${port}/pylon_outage_${process.pid}?directConnection=true`,
        serverSelectionTimeoutMS: 1000,
        socketTimeoutMS: 2000,
      });
      try {
        const col = store.collection<{ n: number }>({ name: 'outage' });
        await col.insert('acct', { n: 1 });
        await new Promise((r) => proxy.close(r));
        for (const s of sockets) s.destroy();
        await unavailableWithin(col.find('acct'), 10_000);
        await unavailableWithin(store.ping(), 10_000);
        await listen(port);
        let back = false;
        for (let i = 0; i < 60 && !back; i++) {
          back = await col.count('acct').then(
            (n) => n === 1,
            () => false,
          );
          if (!back) await new Promise((r) => setTimeout(r, 500));
        }
        expect(back).toBe(true);
      } finally {
        await store.close();
        await new Promise((r) => proxy.close(r));
        for (const s of sockets) s.destroy();
      }
    },
    60_000,
  );
});
