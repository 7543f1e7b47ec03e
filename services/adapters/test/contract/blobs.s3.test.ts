/**
 * Runs the BlobStore contract against S3 for real: an s3rver started here on 127.0.0.1 with a temp
 * directory (always), and the S3_ENDPOINT service (S3_BUCKET, S3_REGION, S3_ACCESS_KEY_ID,
 * S3_SECRET_ACCESS_KEY, S3_PREFIX) when it is set. Every run writes under a prefix of its own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import S3rver from 's3rver';
import { createS3BlobStore, type S3BlobStoreOptions } from '../../src/s3/blobs.s3.js';
import { blobContract, readAll } from '@pylon/kit/contract/blobs.contract';
import { uniqueName } from '../../../kit/test/contract/wait.helpers.js';

const BUCKET = 'pylon-test';
let dir: string;
let server: S3rver;
let local: S3BlobStoreOptions;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-s3rver-'));
  server = new S3rver({ address: '127.0.0.1', port: 0, directory: dir, silent: true, configureBuckets: [{ name: BUCKET, configs: [] }] });
  const address = (await server.run()) as AddressInfo;
  local = {
    endpoint: `http://127.0.0.1:${address.port}`,
    bucket: BUCKET,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    prefix: `${uniqueName('run')}/`,
  };
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

blobContract('s3 (s3rver)', () => createS3BlobStore(local));

const external = process.env.S3_ENDPOINT;
(external ? describe : describe.skip)('S3_ENDPOINT', () => {
  blobContract(`s3 (${external ?? 'unset'})`, () =>
    createS3BlobStore({
      endpoint: external,
      bucket: process.env.S3_BUCKET ?? BUCKET,
      region: process.env.S3_REGION,
      accessKeyId: process.env.S3_ACCESS_KEY_ID,
      secretAccessKey: process.env.S3_SECRET_ACCESS_KEY,
      prefix: `${process.env.S3_PREFIX ?? ''}${uniqueName('run')}/`,
    }),
  );
});

describe('s3 blob store specifics', () => {
  test('a stream larger than one part goes up as a multipart upload and reads back whole', async () => {
    const store = createS3BlobStore({ ...local, partSizeBytes: 5 * 1024 * 1024 });
    const bytes = Buffer.alloc(11 * 1024 * 1024, 7);
    bytes.write('head');
    const info = await store.put('t', 'big.bin', Readable.from([bytes.subarray(0, 6_000_000), bytes.subarray(6_000_000)]), 'application/octet-stream');
    expect(info.size).toBe(bytes.length);
    const got = await store.get('t', 'big.bin', { start: 0, end: 3 });
    expect(got!.info.size).toBe(bytes.length);
    expect((await readAll(got!.body)).toString()).toBe('head');
    await store.close();
  });

  test('a range past the end reads no bytes but keeps the size; names are checked; closed is unavailable', async () => {
    const store = createS3BlobStore(local);
    await store.put('t', 'small', Buffer.from('abc'), 'text/plain');
    const past = await store.get('t', 'small', { start: 10 });
    expect(past!.info.size).toBe(3);
    expect((await readAll(past!.body)).length).toBe(0);
    for (const name of ['../x', '.meta', 'a/b'])
      await expect(store.put('t', name, Buffer.from('x'), 'text/plain')).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    await store.close();
    await expect(store.ping()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  test('an unreachable endpoint is UNAVAILABLE without credentials in the message', async () => {
    const store = createS3BlobStore({ ...local, endpoint: 'http://127.0.0.1:1', secretAccessKey: 'secret-not-to-be-logged', accessKeyId: 'AKIDEXAMPLE' });
    const err = (await store.ping().catch((e: unknown) => e)) as Error & { code?: string };
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.message).not.toContain('secret-not-to-be-logged');
    await store.close();
  });
});
