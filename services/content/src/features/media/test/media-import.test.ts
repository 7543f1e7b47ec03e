/** createMediaFromUrl: success from an allow-listed loopback server, and every SSRF row of SECURITY.md refused. */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { samplePng } from '../../../../../../launcher/src/demo/sample-media.js';
import { principal, startContent, type ContentFixture } from '../../../../test/fixtures/content.js';

const IMPORT =
  'mutation($i: CreateMediaFromUrlInput!) { createMediaFromUrl(input: $i) { success error errorCode errorField media { id name fileName mimeType width height fileUrl } } }';

let allowed: ContentFixture;
let strict: ContentFixture;
let server: Server;
let origin: string;
let png: Buffer;

beforeAll(async () => {
  png = await samplePng(200, 100, '#aa3300');
  // The file server listens on 127.0.0.2: allow-listed for one runtime; its redirects to 127.0.0.1 must still be refused.
  server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/logo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    if (url.pathname === '/to-loopback') return void res.writeHead(302, { location: 'http://127.0.0.1:9/secret' }).end();
    if (url.pathname === '/to-metadata') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    if (url.pathname === '/to-file') return void res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    if (url.pathname === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
    if (url.pathname === '/endless') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(png);
      const more = () => {
        while (res.write(Buffer.alloc(64 * 1024))) {
          /* fill */
        }
        res.once('drain', more);
      };
      more();
      return;
    }
    if (url.pathname === '/slow') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(png.subarray(0, 10));
      return; // never finishes
    }
    if (url.pathname === '/text') return void res.writeHead(200).end('just text, not media'.repeat(100));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.2', () => r()));
  origin = `http://127.0.0.2:${(server.address() as AddressInfo).port}`;
  allowed = await startContent({ importAllowList: ['127.0.0.2'], importTimeoutMs: 1500, maxUploadBytes: 2 * 1024 * 1024 });
  strict = await startContent({ importTimeoutMs: 1500 });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await allowed.close();
  await strict.close();
});

test('imports from an allow-listed loopback server: type and size read from the bytes', async () => {
  const g = await allowed.run('mutation { createMediaGroup(input: { name: "Imported" }) { group { id } } }');
  const r = await allowed.run(IMPORT, { i: { url: `${origin}/logo.png`, name: 'Logo', groupId: g.data!.createMediaGroup.group.id } });
  expect(r.data!.createMediaFromUrl).toMatchObject({
    success: true,
    media: { name: 'Logo', fileName: 'logo.png', mimeType: 'image/png', width: 200, height: 100 },
  });
  expect(r.data!.createMediaFromUrl.media.fileUrl).toMatch(/^\/content\/files\/acc-a\//);
});

test('a foreign or unknown group is refused before downloading', async () => {
  const r = await allowed.run(IMPORT, { i: { url: `${origin}/logo.png`, groupId: 'not-mine' } });
  expect(r.data!.createMediaFromUrl).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT', errorField: 'groupId' });
});

const SSRF_TARGETS = [
  'http://127.0.0.1/',
  'http://localhost/',
  'http://[::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::127.0.0.1]/',
  'http://169.254.169.254/latest/meta-data/',
  'http://10.0.0.1/',
  'http://0.0.0.0/',
  'http://2130706433/',
  'http://0177.0.0.1/',
  'http://192.168.1.1/',
  'http://172.16.0.1/',
  'http://[fe80::1]/',
];

test.each(SSRF_TARGETS)('refuses %s before connecting', async (url) => {
  const r = await strict.run(IMPORT, { i: { url } });
  expect(r.data!.createMediaFromUrl).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT', errorField: 'url' });
  expect(r.data!.createMediaFromUrl.error).toMatch(/may not reach/);
});

test('the allow-listed server itself is refused where it is not allow-listed', async () => {
  const r = await strict.run(IMPORT, { i: { url: `${origin}/logo.png` } });
  expect(r.data!.createMediaFromUrl).toMatchObject({ success: false, errorField: 'url' });
});

test.each([
  'file:///etc/passwd',
  'data:image/png;base64,iVBORw0KGgo=',
  'gopher://127.0.0.1:70/',
  'ftp://example.com/a.png',
  'not a url',
  'http://user:pw@example.com/a.png',
])('refuses %s', async (url) => {
  const r = await strict.run(IMPORT, { i: { url } });
  expect(r.data!.createMediaFromUrl).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT', errorField: 'url' });
});

test.each(['/to-loopback', '/to-metadata', '/to-file'])('re-checks the target of a redirect (%s)', async (path) => {
  const r = await allowed.run(IMPORT, { i: { url: `${origin}${path}` } });
  expect(r.data!.createMediaFromUrl).toMatchObject({ success: false, errorField: 'url' });
  expect(r.data!.createMediaFromUrl.errorCode).toBe('BAD_USER_INPUT');
});

test('endless redirects, endless bodies and slow bodies are cut off; nothing is kept', async () => {
  const loop = await allowed.run(IMPORT, { i: { url: `${origin}/loop` } }, principal('acc-cap'));
  expect(loop.data!.createMediaFromUrl).toMatchObject({ success: false, errorCode: 'UNPROCESSABLE', errorField: 'url' });
  const endless = await allowed.run(IMPORT, { i: { url: `${origin}/endless` } }, principal('acc-cap'));
  expect(endless.data!.createMediaFromUrl).toMatchObject({ success: false, errorCode: 'PAYLOAD_TOO_LARGE' });
  const started = Date.now();
  const slow = await allowed.run(IMPORT, { i: { url: `${origin}/slow` } }, principal('acc-cap'));
  expect(slow.data!.createMediaFromUrl).toMatchObject({ success: false, errorCode: 'UNPROCESSABLE', errorField: 'url' });
  expect(Date.now() - started).toBeLessThan(5000);
  const text = await allowed.run(IMPORT, { i: { url: `${origin}/text` } }, principal('acc-cap'));
  expect(text.data!.createMediaFromUrl).toMatchObject({ success: false, errorCode: 'UNSUPPORTED_MEDIA_TYPE' });
  const missing = await allowed.run(IMPORT, { i: { url: `${origin}/nope.png` } }, principal('acc-cap'));
  expect(missing.data!.createMediaFromUrl).toMatchObject({ success: false, errorCode: 'UNPROCESSABLE' });
  expect(await allowed.blobFiles('acc-cap')).toEqual([]);
  expect((await allowed.run('{ media { id } }', {}, principal('acc-cap'))).data!.media).toEqual([]);
});
