/**
 * The legacy REST interface through real HTTP against the all-in-one server (as `npm start`
 * runs it): GET /account and /devices in json, xml and JSONP, the api_key rule, format and
 * callback validation, and the request-body defences (SECURITY.md: JSONP, XML bombs / XXE,
 * prototype pollution, resource consumption).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '@pylon/kit';
import { LEGACY_ACCOUNT_FIELDS, parseXmlBody } from '@pylon/legacy-adapter';
import { startAllInOne, type AllInOne } from '../../launcher/src/all-in-one.js';
import { allInOneEnv } from '../../launcher/src/all-in-one.config.js';

const API_KEY = 'legacy-e2e-bootstrap-key-0123456789';
const DEVICE_FIELDS = ['id', 'name', 'is_online', 'tags', 'group_id', 'group_name', 'device_type', 'ping_data', 'location', 'registration_key'];

let server: AllInOne;
let dataDir: string;
const logLines: string[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'pylon-legacy-'));
  const env = allInOneEnv.parse({
    SIGNAGE_DATA_DIR: dataDir,
    PORT: '0',
    LEGACY_PORT: '0',
    LOG_LEVEL: 'silent',
    SIGNAGE_BOOTSTRAP_API_KEY: API_KEY,
    NODE_ENV: 'test',
    SIGNAGE_SIMULATOR: 'false',
  });
  // Request logs are captured to prove the key never reaches them.
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  server = await startAllInOne(env, { logger: createLogger({ level: 'info', name: 'legacy-e2e', destination }) });
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  type: string;
  headers: Headers;
  text: string;
  ms: number;
}

async function call(path: string, init: RequestInit & { key?: string | null } = {}): Promise<Answer> {
  const { key = API_KEY, ...rest } = init;
  const url = new URL(path, server.legacyUrl);
  if (key !== null) url.searchParams.set('api_key', key);
  const started = performance.now();
  const res = await fetch(url, rest);
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', headers: res.headers, text, ms: performance.now() - started };
}

const post = (path: string, contentType: string, body: string) => call(path, { method: 'POST', headers: { 'content-type': contentType }, body });

const jsonError = (a: Answer) => (JSON.parse(a.text) as { error: { code: string; message: string } }).error;

function expectSecurityHeaders(a: Answer) {
  expect(a.headers.get('x-content-type-options')).toBe('nosniff');
  expect(a.headers.get('x-powered-by')).toBeNull();
}

/** Element names directly inside the root, in document order. */
const childNames = (xml: string, root: string) => {
  const inner = xml.slice(xml.indexOf(`<${root}>`) + root.length + 2, xml.lastIndexOf(`</${root}>`));
  const names: string[] = [];
  let depth = 0;
  for (const m of inner.matchAll(/<(\/?)([\w.-]+)[^>]*?(\/?)>/g)) {
    if (m[1]) depth--;
    else {
      if (depth === 0) names.push(m[2]!);
      if (!m[3]) depth++;
    }
  }
  return names;
};

describe('GET /account', () => {
  it('json: exactly the legacy account fields, in order', async () => {
    const a = await call('/account');
    expect(a.status).toBe(200);
    expect(a.type).toBe('application/json; charset=utf-8');
    expectSecurityHeaders(a);
    const account = JSON.parse(a.text) as Record<string, unknown>;
    expect(Object.keys(account)).toEqual([...LEGACY_ACCOUNT_FIELDS]);
    expect(account).toMatchObject({
      name: 'Demo Signage Co',
      business_name: 'Demo Signage Company B.V.',
      address_2: null,
      fax: null,
      timezone: 'Europe/Amsterdam',
      country: 'NL',
    });
    expect(account.created_on).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it('xml: <account> root, the same fields in the same order, nulls as nil elements', async () => {
    const a = await call('/account?format=xml');
    expect(a.status).toBe(200);
    expect(a.type).toBe('application/xml; charset=utf-8');
    expectSecurityHeaders(a);
    expect(a.text.startsWith('<?xml version="1.0" encoding="UTF-8"?><account>')).toBe(true);
    expect(childNames(a.text, 'account')).toEqual([...LEGACY_ACCOUNT_FIELDS]);
    expect(a.text).toContain('<fax nil="true"/>');
    const parsed = parseXmlBody(a.text);
    expect(parsed.root).toBe('account');
    expect(parsed.value).toMatchObject({ name: 'Demo Signage Co', timezone: 'Europe/Amsterdam' });
  });

  it('format is case-insensitive', async () => {
    expect((await call('/account?format=XML')).type).toBe('application/xml; charset=utf-8');
  });

  it('JSONP: callback=handle wraps the JSON in a guarded call, served as script with nosniff', async () => {
    const a = await call('/account?callback=handle');
    expect(a.status).toBe(200);
    expect(a.type).toBe('text/javascript; charset=utf-8');
    expectSecurityHeaders(a);
    expect(a.text.startsWith(`/**/ typeof handle === 'function' && handle({`)).toBe(true);
    expect(a.text.endsWith('});')).toBe(true);
    let received: Record<string, unknown> | undefined;
    new Function('handle', a.text)((v: Record<string, unknown>) => (received = v));
    expect(Object.keys(received ?? {})).toEqual([...LEGACY_ACCOUNT_FIELDS]);
  });
});

describe('format and callback validation', () => {
  it('format=pdf is a 400 answered in JSON', async () => {
    const a = await call('/account?format=pdf');
    expect(a.status).toBe(400);
    expect(a.type).toBe('application/json; charset=utf-8');
    expect(jsonError(a).code).toBe('UNSUPPORTED_FORMAT');
  });

  it('format=rss is a 400 where the resource has no RSS view (answered as XML)', async () => {
    for (const path of ['/account?format=rss', '/devices?format=rss']) {
      const a = await call(path);
      expect(a.status).toBe(400);
      expect(a.type).toBe('application/xml; charset=utf-8');
      expect(a.text).toMatch(/<error><code>UNSUPPORTED_FORMAT<\/code><message>[^<]+<\/message><field>format<\/field><request_id>[^<]+<\/request_id><\/error>$/);
    }
  });

  it.each([
    ['alert(1)', 'alert(1)'],
    ['alert(1)//', 'alert(1)//'],
    ['a;b', 'a;b'],
    ['</script>', '</script>'],
    ['a 10 KB name', 'a'.repeat(10 * 1024)],
    ['an empty name', ''],
  ])('callback %s is a 400, never reflected', async (_label, name) => {
    const a = await call(`/account?callback=${encodeURIComponent(name)}`);
    expect(a.status).toBe(400);
    expect(a.type).toBe('application/json; charset=utf-8');
    expect(jsonError(a).code).toBe('BAD_USER_INPUT');
    if (name) expect(a.text).not.toContain(name);
  });

  it('callback with format=xml is refused (400, in XML), not silently ignored', async () => {
    const a = await call('/account?callback=handle&format=xml');
    expect(a.status).toBe(400);
    expect(a.type).toBe('application/xml; charset=utf-8');
  });
});

describe('errors carry the request id', () => {
  it('in JSON, XML and JSONP: request_id, the X-Request-Id header, as REST errors do', async () => {
    const json = await call('/account', { key: null, headers: { 'x-request-id': 'legacy-req-1' } });
    expect(jsonError(json)).toMatchObject({ code: 'UNAUTHENTICATED', request_id: 'legacy-req-1' });
    const xml = await call('/devices/no-such-device?format=xml');
    expect(xml.status).toBe(404);
    expect(xml.text).toContain(`<request_id>${xml.headers.get('x-request-id')}</request_id>`);
    const jsonp = await call('/devices/no-such-device?callback=show');
    expect(jsonp.text).toContain(`"request_id":"${jsonp.headers.get('x-request-id')}"`);
  });
});

describe('api_key', () => {
  it('missing: 401 in JSON and in XML', async () => {
    const json = await call('/account', { key: null });
    expect(json.status).toBe(401);
    expect(jsonError(json).code).toBe('UNAUTHENTICATED');
    expectSecurityHeaders(json);
    const xml = await call('/account?format=xml', { key: null });
    expect(xml.status).toBe(401);
    expect(xml.type).toBe('application/xml; charset=utf-8');
    expect(xml.text).toContain('<error><code>UNAUTHENTICATED</code>');
  });

  it('the X-Service-ApiKey header alone is not accepted on legacy', async () => {
    const a = await call('/account', { key: null, headers: { 'x-service-apikey': API_KEY } });
    expect(a.status).toBe(401);
    expect(jsonError(a).code).toBe('UNAUTHENTICATED');
  });

  it('a wrong key is a 401', async () => {
    const a = await call('/account', { key: 'not-a-real-key-0123456789' });
    expect(a.status).toBe(401);
    expect(jsonError(a).code).toBe('UNAUTHENTICATED');
    expect((await call('/devices?format=xml', { key: 'wrong' })).status).toBe(401);
  });

  it('ops endpoints need no key; request logs never hold the key', async () => {
    expect((await call('/healthz', { key: null })).status).toBe(200);
    await call('/account');
    const logs = logLines.join('');
    expect(logs).toContain('/account');
    expect(logs).not.toContain(API_KEY);
  });
});

describe('GET /devices', () => {
  it('json: a list of snake_case device records', async () => {
    const a = await call('/devices');
    expect(a.status).toBe(200);
    const devices = JSON.parse(a.text) as Record<string, unknown>[];
    expect(devices.length).toBeGreaterThan(0);
    for (const d of devices) expect(Object.keys(d)).toEqual(DEVICE_FIELDS);
    const d = devices[0]!;
    expect(typeof d.is_online).toBe('boolean');
    expect(Object.keys(d.ping_data as object)).toEqual(['cpu_usage', 'memory_usage', 'disk_usage', 'player_version', 'ip_address', 'timestamp']);
    expect((d.ping_data as { timestamp: string }).timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(Object.keys(d.device_type as object)).toEqual(['id', 'name', 'manufacturer']);
    expect(Object.keys(d.location as object)).toEqual(['city', 'state', 'country', 'latitude', 'longitude']);
  });

  it('take and page page through the list; bad values are a 400', async () => {
    const all = JSON.parse((await call('/devices')).text) as { id: string }[];
    const page1 = JSON.parse((await call('/devices?take=2&page=1')).text) as { id: string }[];
    expect(page1.map((d) => d.id)).toEqual(all.slice(2, 4).map((d) => d.id));
    expect((await call('/devices?take=0')).status).toBe(400);
    expect((await call('/devices?take=abc&format=xml')).status).toBe(400);
  });

  it('xml: <devices><device>...</device></devices>', async () => {
    const json = JSON.parse((await call('/devices')).text) as unknown[];
    const a = await call('/devices?format=xml');
    expect(a.status).toBe(200);
    expect(a.type).toBe('application/xml; charset=utf-8');
    expect(a.text.startsWith('<?xml version="1.0" encoding="UTF-8"?><devices><device><id>')).toBe(true);
    expect(childNames(a.text, 'devices')).toEqual(json.map(() => 'device'));
    const first = a.text.slice(a.text.indexOf('<device>'), a.text.indexOf('</device>') + '</device>'.length);
    expect(childNames(first, 'device')).toEqual(DEVICE_FIELDS);
    expect(first).toMatch(/<tags>(<tag>[^<]+<\/tag>)+<\/tags>/);
  });

  it('JSONP works for the list too', async () => {
    const a = await call('/devices?callback=cbs.devices');
    expect(a.text.startsWith(`/**/ typeof cbs.devices === 'function' && cbs.devices([`)).toBe(true);
  });
});

describe('request bodies', () => {
  // Bodies are checked before routing (nothing is parsed for an unauthenticated request), so any
  // POST path proves the defences; create/update resources arrive later.
  const BILLION_LAUGHS = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from({ length: 8 }, (_, i) => `<!ENTITY lol${i + 2} "${`&lol${i === 0 ? '' : i + 1};`.repeat(10)}">`).join('')}]><device><name>&lol9;</name></device>`;

  it('an XML entity bomb is a 400 within milliseconds', async () => {
    const a = await post('/devices', 'application/xml', BILLION_LAUGHS);
    expect(a.status).toBe(400);
    expect(jsonError(a).message).toMatch(/DTD/);
    expect(a.ms).toBeLessThan(200);
  });

  it('XXE (an external SYSTEM entity) is a 400 and nothing is read', async () => {
    const a = await post(
      '/devices?format=xml',
      'text/xml',
      '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><device><name>&xxe;</name></device>',
    );
    expect(a.status).toBe(400);
    expect(a.type).toBe('application/xml; charset=utf-8');
    expect(a.text).not.toContain('root:');
  });

  it('200-deep nesting is a 400', async () => {
    const a = await post('/devices', 'application/xml', `${'<a>'.repeat(200)}x${'</a>'.repeat(200)}`);
    expect(a.status).toBe(400);
    expect(jsonError(a).message).toMatch(/nested/);
  });

  it('<__proto__> is a 400, not a 500, and Object.prototype stays clean', async () => {
    const a = await post('/devices', 'application/xml', '<device><__proto__><x>polluted</x></__proto__></device>');
    expect(a.status).toBe(400);
    const b = await post('/devices', 'application/xml', '<device><constructor><prototype><x>polluted</x></prototype></constructor></device>');
    expect(b.status).toBe(400);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('a JSON body with prototype keys is a 400', async () => {
    for (const body of ['{"__proto__":{"x":"polluted"}}', '{"constructor":{"prototype":{"x":"polluted"}}}', '{"a":[{"__proto__":{"x":1}}]}']) {
      const a = await post('/devices', 'application/json', body);
      expect(a.status).toBe(400);
      expect(jsonError(a).code).toBe('BAD_USER_INPUT');
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('an oversized body is a 413', async () => {
    const a = await post('/devices', 'application/json', JSON.stringify({ name: 'x'.repeat(1_100_000) }));
    expect(a.status).toBe(413);
    expect(jsonError(a).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('another content type is a 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const a = await post('/devices', type, 'name=x');
      expect(a.status).toBe(415);
      expect(jsonError(a).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('malformed XML and JSON are 400s', async () => {
    expect((await post('/devices', 'application/xml', '<device><name>x</device>')).status).toBe(400);
    expect((await post('/devices', 'application/json', '{"name":')).status).toBe(400);
  });

  it('a well-formed body on a path without that method is a 404 in the asked format', async () => {
    const a = await post('/account?format=xml', 'application/xml', '<account><name>x</name></account>');
    expect(a.status).toBe(404);
    expect(a.text).toContain('<code>NOT_FOUND</code>');
  });

  it('without a key the body is not even read', async () => {
    const a = await call('/devices', { key: null, method: 'POST', headers: { 'content-type': 'application/xml' }, body: BILLION_LAUGHS });
    expect(a.status).toBe(401);
  });

  it('JSONP is only for GET', async () => {
    const a = await post('/devices?callback=cb', 'application/json', '{}');
    expect(a.status).toBe(400);
  });
});
