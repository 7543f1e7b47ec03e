/** Uploads (multipart and raw), metadata from the bytes, limits, interruptions and the signed file addresses, through the HTTP router and GraphQL. */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { samplePng, sampleAvi } from '../../../../../../launcher/src/demo/sample-media.js';
import { MEDIA_FIELDS, multipart, principal, startContent, type ContentFixture } from '../../../../test/fixtures/content.js';

let f: ContentFixture;
let png: Buffer;
let avi: Buffer;

beforeAll(async () => {
  f = await startContent({ maxUploadBytes: 300 * 1024 * 1024 });
  png = await samplePng(640, 360, '#204080', 'Hello');
  avi = await sampleAvi(320, 180, 3);
});
afterAll(() => f.close());

const post = (path: string, body: Buffer, headers: Record<string, string>, account = 'acc-a') =>
  fetch(`${f.base}${path}`, { method: 'POST', body, headers: { 'x-test-account': account, ...headers } });

async function mediaById(id: string, account = 'acc-a') {
  const r = await f.run(`query($id: [String!]) { media(id: $id) { ${MEDIA_FIELDS} } }`, { id: [id] }, principal(account));
  return r.data?.media?.[0] ?? null;
}

describe('multipart upload (POST /media)', () => {
  test('stores the file, reads type, size and dimensions from the bytes, answers the reference Media body', async () => {
    const { body, contentType } = multipart(
      { name: 'Lobby banner', tags: 'lobby, blue', start_date: '2026-01-01T00:00:00Z' },
      { name: 'banner.jpg', type: 'image/jpeg', bytes: png },
    );
    const res = await post('/media', body, { 'content-type': contentType });
    expect(res.status).toBe(201);
    const m = (await res.json()) as Record<string, unknown>;
    expect(m).toMatchObject({
      name: 'Lobby banner',
      file_name: 'banner.jpg',
      mime_type: 'image/png',
      file_size: png.length,
      width: 640,
      height: 360,
      tags: 'lobby,blue',
      start_date: '2026-01-01T00:00:00Z',
      is_shared: false,
    });
    expect(m.sha_512).toBe(createHash('sha512').update(png).digest('hex'));
    expect(Object.keys(m).sort()).toEqual([
      'advertiser_id',
      'end_date',
      'file_name',
      'file_size',
      'file_url',
      'group_id',
      'group_name',
      'height',
      'id',
      'is_shared',
      'mime_type',
      'name',
      'sha_512',
      'start_date',
      'tags',
      'thumbnail_url',
      'uploaded_by_id',
      'uploaded_on',
      'width',
    ]);
    const g = await mediaById(String(m.id));
    expect(g).toMatchObject({ name: 'Lobby banner', mimeType: 'image/png', width: 640, height: 360, tags: ['lobby', 'blue'], duration: null });

    // The file and its thumbnail are served back at their signed addresses.
    const file = await fetch(`${f.base}${g.fileUrl}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(file.headers.get('etag')).toBeTruthy();
    expect(file.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(Buffer.from(await file.arrayBuffer()).equals(png)).toBe(true);
    const thumb = await fetch(`${f.base}${g.thumbnailUrl}`);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    expect((await thumb.arrayBuffer()).byteLength).toBeGreaterThan(100);
  });

  test('form fields after the file part still apply', async () => {
    const { body, contentType } = multipart({ name: 'After the file' }, { name: 'late.png', type: 'image/png', bytes: png }, true);
    const res = await post('/media', body, { 'content-type': contentType });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { name: string }).name).toBe('After the file');
  });

  test('duplicates are visible by their equal SHA-512', async () => {
    const a = multipart({}, { name: 'one.png', type: 'image/png', bytes: png });
    const b = multipart({}, { name: 'two.png', type: 'image/png', bytes: png });
    const [ra, rb] = await Promise.all([post('/media', a.body, { 'content-type': a.contentType }), post('/media', b.body, { 'content-type': b.contentType })]);
    const [ma, mb] = (await Promise.all([ra.json(), rb.json()])) as { id: string; sha_512: string }[];
    expect(ma!.id).not.toBe(mb!.id);
    expect(ma!.sha_512).toBe(mb!.sha_512);
  });

  test('a spoofed type is refused from the bytes (415), and so is an unknown one; nothing is stored', async () => {
    const before = await f.blobFiles('acc-spoof');
    const text = multipart({}, { name: 'evil.png', type: 'image/png', bytes: Buffer.from('<script>alert(1)</script>'.repeat(300)) });
    const res = await post('/media', text.body, { 'content-type': text.contentType }, 'acc-spoof');
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE', field: 'file' } });
    const zip = multipart({}, { name: 'a.png', type: 'image/png', bytes: Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(5000)]) });
    expect((await post('/media', zip.body, { 'content-type': zip.contentType }, 'acc-spoof')).status).toBe(415);
    expect(await f.blobFiles('acc-spoof')).toEqual(before);
    expect((await f.run('{ media { id } }', {}, principal('acc-spoof'))).data?.media).toEqual([]);
  });

  test('an image is accepted only when a decoder reads it: magic bytes alone and truncated files are 415 with the reason (issue 20, finding 7)', async () => {
    const before = await f.blobFiles('acc-undecodable');
    const jpeg = await (await import('sharp')).default(png).jpeg().toBuffer();
    const cases = [
      { name: 'three bytes', bytes: Buffer.from([0xff, 0xd8, 0xff]), reason: /cannot be decoded/ },
      { name: 'header only', bytes: jpeg.subarray(0, 400), reason: /cannot be decoded/ },
      { name: 'half the pixels', bytes: jpeg.subarray(0, Math.floor(jpeg.length / 2)), reason: /cannot be decoded/ },
      { name: 'png header, no pixels', bytes: png.subarray(0, 60), reason: /cannot be decoded/ },
      {
        name: 'svg (refused on purpose)',
        bytes: Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'),
        reason: /SVG files are not accepted/,
      },
    ];
    for (const c of cases) {
      const form = multipart({}, { name: 'x.jpg', type: 'image/jpeg', bytes: c.bytes });
      const res = await post('/media', form.body, { 'content-type': form.contentType }, 'acc-undecodable');
      const body = (await res.json()) as { error: { code: string; field: string; message: string } };
      expect([c.name, res.status, body.error.code, body.error.field]).toEqual([c.name, 415, 'UNSUPPORTED_MEDIA_TYPE', 'file']);
      expect([c.name, body.error.message]).toEqual([c.name, expect.stringMatching(c.reason)]);
    }
    expect(await f.blobFiles('acc-undecodable')).toEqual(before);
    expect((await f.run('{ media { id } }', {}, principal('acc-undecodable'))).data?.media).toEqual([]);
    // A whole JPEG still goes through, with its size.
    const ok = multipart({}, { name: 'ok.jpg', type: 'image/jpeg', bytes: jpeg });
    const res = await post('/media', ok.body, { 'content-type': ok.contentType }, 'acc-undecodable');
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ mime_type: 'image/jpeg', width: 640, height: 360 });
  });

  test('missing file, unknown group, bad date and too many parts are 4xx naming the field', async () => {
    const none = multipart({ name: 'x' }, null);
    expect(await (await post('/media', none.body, { 'content-type': none.contentType })).json()).toMatchObject({
      error: { code: 'VALIDATION_FAILED', field: 'file' },
    });
    const group = multipart({ group_id: 'nope' }, { name: 'a.png', type: 'image/png', bytes: png });
    const rg = await post('/media', group.body, { 'content-type': group.contentType });
    expect(rg.status).toBe(400);
    expect(await rg.json()).toMatchObject({ error: { field: 'groupId' } });
    const date = multipart({ start_date: 'yesterday' }, { name: 'a.png', type: 'image/png', bytes: png });
    expect(await (await post('/media', date.body, { 'content-type': date.contentType })).json()).toMatchObject({ error: { field: 'startDate' } });
    const many = multipart(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, 'x'])), { name: 'a.png', type: 'image/png', bytes: png });
    expect((await post('/media', many.body, { 'content-type': many.contentType })).status).toBe(413);
    expect((await post('/media', Buffer.from('{}'), { 'content-type': 'application/json' })).status).toBe(415);
  });

  test('without credentials 401, without Files_Edit 403', async () => {
    const { body, contentType } = multipart({}, { name: 'a.png', type: 'image/png', bytes: png });
    expect((await fetch(`${f.base}/media`, { method: 'POST', body, headers: { 'content-type': contentType } })).status).toBe(401);
    expect((await post('/media', body, { 'content-type': contentType, 'x-test-policies': 'Files_View' })).status).toBe(403);
  });
});

describe('raw upload (POST /media/{group_id}/{file_name})', () => {
  test('into a group, with video duration and size from ffprobe', async () => {
    const g = await f.run('mutation { createMediaGroup(input: { name: "Videos" }) { success group { id } } }');
    const groupId = g.data!.createMediaGroup.group.id as string;
    const res = await post(`/media/${groupId}/clip.avi?name=Clip&description=promo`, avi, { 'content-type': 'application/octet-stream' });
    expect(res.status).toBe(201);
    const m = (await res.json()) as { id: string };
    expect(await mediaById(m.id)).toMatchObject({
      name: 'Clip',
      fileName: 'clip.avi',
      mimeType: 'video/vnd.avi',
      width: 320,
      height: 180,
      duration: 3,
      groupId,
      groupName: 'Videos',
      tags: ['promo'],
      thumbnailUrl: null,
    });
  });

  test('Range requests serve part of the file (206) for video seeking', async () => {
    const res = await post('/media/_/clip.avi', avi, {}, 'acc-range');
    expect(res.status).toBe(400); // '_' is not one of the account's groups
    const ok = await post(`/media/${encodeURIComponent('')}x/clip.avi`, avi, {}, 'acc-range');
    expect(ok.status).toBe(400);
    const g = await f.run('mutation { createMediaGroup(input: { name: "R" }) { group { id } } }', {}, principal('acc-range'));
    const made = (await (await post(`/media/${g.data!.createMediaGroup.group.id}/clip.avi`, avi, {}, 'acc-range')).json()) as { file_url: string };
    const part = await fetch(`${f.base}${made.file_url}`, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${avi.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(avi.subarray(100, 200))).toBe(true);
    const etag = part.headers.get('etag')!;
    expect((await fetch(`${f.base}${made.file_url}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await fetch(`${f.base}${made.file_url}`, { headers: { range: `bytes=${avi.length + 10}-` } })).status).toBe(416);
  });

  test('a tampered or foreign file address is refused', async () => {
    const made = (await (
      await post(
        '/media',
        ...(() => {
          const m = multipart({}, { name: 'a.png', type: 'image/png', bytes: png });
          return [m.body, { 'content-type': m.contentType }] as const;
        })(),
      )
    ).json()) as { file_url: string };
    const url = new URL(made.file_url, f.base);
    const otherAccount = url.pathname.replace('/acc-a/', '/acc-b/');
    expect((await fetch(`${f.base}${otherAccount}${url.search}`)).status).toBe(403);
    url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 1000));
    expect((await fetch(url)).status).toBe(403);
  });

  test('too large: 413 from Content-Length, and while streaming; nothing left behind', async () => {
    const small = await startContent({ maxUploadBytes: 10_000 });
    try {
      const big = Buffer.concat([png, Buffer.alloc(20_000)]);
      const res = await fetch(`${small.base}/media/none/big.png`, { method: 'POST', body: big, headers: { 'x-test-account': 'acc-a' } });
      expect(res.status).toBe(413);
      // Chunked (no Content-Length): refused as the bytes pass the cap.
      const chunked = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          `${small.base}/media/x/big.png`,
          { method: 'POST', headers: { 'x-test-account': 'acc-a', 'transfer-encoding': 'chunked' } },
          (r) => {
            r.resume();
            resolve(r.statusCode!);
          },
        );
        req.on('error', reject);
        req.write(png);
        req.end(Buffer.alloc(20_000));
      });
      expect([400, 413]).toContain(chunked); // 'x' is no group: refused before the bytes (400)
      const g = await small.run('mutation { createMediaGroup(input: { name: "G" }) { group { id } } }');
      const gid = g.data!.createMediaGroup.group.id;
      const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          `${small.base}/media/${gid}/big.png`,
          { method: 'POST', headers: { 'x-test-account': 'acc-a', 'transfer-encoding': 'chunked' } },
          (r) => {
            let b = '';
            r.on('data', (c) => (b += c));
            r.on('end', () => resolve({ status: r.statusCode!, body: b }));
          },
        );
        req.on('error', reject);
        req.write(png);
        req.end(Buffer.alloc(20_000));
      });
      expect(streamed.status).toBe(413);
      expect(JSON.parse(streamed.body)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', field: 'file' } });
      expect(await small.blobFiles('acc-a')).toEqual([]);
      expect((await small.run('{ media { id } }')).data?.media).toEqual([]);
    } finally {
      await small.close();
    }
  });

  test('an interrupted upload leaves no file and no record', async () => {
    const g = await f.run('mutation { createMediaGroup(input: { name: "Cut" }) { group { id } } }', {}, principal('acc-cut'));
    await new Promise<void>((resolve) => {
      const req = http.request(`${f.base}/media/${g.data!.createMediaGroup.group.id}/cut.png`, {
        method: 'POST',
        headers: { 'x-test-account': 'acc-cut', 'content-length': String(png.length * 10) },
      });
      req.on('error', () => resolve());
      req.write(png, () =>
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 200),
      );
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(await f.blobFiles('acc-cut')).toEqual([]);
    expect((await f.run('{ media { id } }', {}, principal('acc-cut'))).data?.media).toEqual([]);
  });

  test('a 200 MB file streams through with bounded memory, with its SHA-512', async () => {
    const size = 200 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024, 7);
    const head = Buffer.from('%PDF-1.4\n');
    const g = await f.run('mutation { createMediaGroup(input: { name: "Big" }) { group { id } } }', {}, principal('acc-big'));
    global.gc?.();
    const idle = process.memoryUsage().rss;
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${f.base}/media/${g.data!.createMediaGroup.group.id}/big.pdf`,
        { method: 'POST', headers: { 'x-test-account': 'acc-big', 'content-length': String(size) } },
        (r) => {
          r.resume();
          resolve(r.statusCode!);
        },
      );
      req.on('error', reject);
      let sent = 0;
      const pump = () => {
        while (sent < size) {
          const piece = sent === 0 ? Buffer.concat([head, chunk.subarray(head.length)]) : chunk;
          sent += piece.length;
          if (!req.write(piece)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    clearInterval(sampler);
    expect(status).toBe(201);
    const [m] = (await f.run('{ media { fileSize mimeType sha512 } }', {}, principal('acc-big'))).data!.media;
    const sha = createHash('sha512').update(Buffer.concat([head, chunk.subarray(head.length)]));
    for (let i = 1; i < size / chunk.length; i++) sha.update(chunk);
    expect(m).toEqual({ fileSize: size, mimeType: 'application/pdf', sha512: sha.digest('hex') });
    expect((peak - idle) / 1024 / 1024).toBeLessThan(150);
  }, 120_000);
});
