/** Legacy /devices and /devices/groups: list, one, create and update with XML or JSON bodies, delete; json, xml and JSONP out; errors in the asked format. */
import { parseXmlBody } from '@pylon/legacy-adapter';
import { legacyCaller, startHarness, type Harness } from './harness.js';
import { otherAccountKey } from './other-account.js';

let h: Harness;
let otherKey: string;
const call = legacyCaller(() => h);
const json = (t: string) => JSON.parse(t) as Record<string, any>;
beforeAll(async () => {
  h = await startHarness();
  otherKey = await otherAccountKey(h, 'legacy-dev-other', 'o@legacy.example');
}, 60_000);
afterAll(() => h.stop());

test('create with an XML body, read it back as json, xml and JSONP', async () => {
  const xml =
    '<?xml version="1.0"?><device><name>Legacy &amp; XML</name><tags><tag>a</tag><tag>b</tag></tags><location><city>Gent</city><latitude>51.05</latitude></location><timezone>Europe/Brussels</timezone></device>';
  const created = await call('POST', '/devices?format=xml', { body: xml, type: 'application/xml' });
  expect(created.status).toBe(201);
  expect(created.type).toBe('application/xml; charset=utf-8');
  const device = parseXmlBody(created.text).value as Record<string, any>;
  expect(device).toMatchObject({ name: 'Legacy & XML', tags: { tag: ['a', 'b'] }, location: { city: 'Gent', latitude: '51.05' } });
  expect(device.registration_key).toMatch(/^[0-9a-f]{32}$/);

  const one = await call('GET', `/devices/${device.id}`);
  expect(one.status).toBe(200);
  expect(json(one.text)).toMatchObject({ id: device.id, name: 'Legacy & XML', tags: ['a', 'b'], location: { latitude: 51.05 } });
  const jsonp = await call('GET', `/devices/${device.id}?callback=show`);
  expect(jsonp.type).toBe('text/javascript; charset=utf-8');
  expect(jsonp.text.startsWith("/**/ typeof show === 'function' && show({")).toBe(true);
  expect((await call('GET', `/devices/${device.id}?format=xml`)).text).toContain('<name>Legacy &amp; XML</name>');
});

test('create and update with JSON; delete; foreign ids are 404 in the asked format', async () => {
  const created = json((await call('POST', '/devices', { body: JSON.stringify({ name: 'Legacy JSON', tags: 'x, y' }) })).text);
  expect(created.tags).toEqual(['x', 'y']);
  const updated = await call('PUT', `/devices/${created.id}`, { body: '<device><name>Renamed</name></device>', type: 'text/xml' });
  expect(json(updated.text)).toMatchObject({ name: 'Renamed', tags: ['x', 'y'] });
  expect(json((await call('POST', `/devices/${created.id}`, { body: JSON.stringify({ notes: 'via POST' }) })).text).name).toBe('Renamed');
  const foreign = await call('GET', `/devices/${created.id}?format=xml`, { key: otherKey });
  expect(foreign.status).toBe(404);
  expect(foreign.text).toContain('<code>NOT_FOUND</code>');
  expect((await call('DELETE', `/devices/${created.id}`, { key: otherKey })).status).toBe(404);
  const del = await call('DELETE', `/devices/${created.id}`);
  expect(json(del.text)).toEqual({ id: created.id, deleted: true });
  expect((await call('GET', `/devices/${created.id}`)).status).toBe(404);
});

test('refusals: read-only and unknown fields, missing name, bad numbers, prototype elements', async () => {
  const cases: [string, string, string][] = [
    ['{"name":"x","id":"mine"}', 'application/json', 'id'],
    ['{"name":"x","account_id":"a"}', 'application/json', 'account_id'],
    ['{"tags":"a"}', 'application/json', 'name'],
    ['<device><name>x</name><location><latitude>north</latitude></location></device>', 'application/xml', 'location.latitude'],
    ['<device><name>x</name><group_id>nope</group_id></device>', 'application/xml', 'group'],
  ];
  for (const [body, type, hint] of cases) {
    const r = await call('POST', '/devices?format=xml', { body, type });
    expect(r.status).toBe(400);
    expect(r.text).toContain('<code>BAD_USER_INPUT</code>');
    expect(r.text).toContain(hint);
  }
  const proto = await call('POST', '/devices', { body: '<device><__proto__><x>1</x></__proto__><name>p</name></device>', type: 'application/xml' });
  expect(proto.status).toBe(400);
  expect(({} as Record<string, unknown>).x).toBeUndefined();
});

test('/devices/groups: create (XML), list flat and as a tree in json, xml and JSONP, update, delete', async () => {
  const parent = json((await call('POST', '/devices/groups', { body: '<group><name>Legacy region</name></group>', type: 'application/xml' })).text);
  const child = json((await call('POST', '/devices/groups', { body: JSON.stringify({ name: 'Legacy store', parent_id: parent.id }) })).text);
  expect(child).toMatchObject({ name: 'Legacy store', parent_id: parent.id, level: 1 });
  const tree = json((await call('GET', '/devices/groups?tree=true')).text) as unknown as Record<string, any>[];
  expect(tree.find((g) => g.id === parent.id)?.children).toEqual([expect.objectContaining({ id: child.id, name: 'Legacy store' })]);
  const xml = await call('GET', '/devices/groups?format=xml');
  expect(xml.text).toContain('<groups><group>');
  expect(xml.text).toContain('<name>Legacy store</name>');
  expect((await call('GET', '/devices/groups?callback=cb')).text.startsWith("/**/ typeof cb === 'function' && cb([")).toBe(true);
  expect(json((await call('PUT', `/devices/groups/${child.id}`, { body: JSON.stringify({ name: 'Legacy shop' }) })).text).name).toBe('Legacy shop');
  expect((await call('DELETE', `/devices/groups/${child.id}`, { key: otherKey })).status).toBe(404);
  expect(json((await call('DELETE', `/devices/groups/${child.id}`)).text)).toEqual({ id: child.id, deleted: true });
  expect((await call('POST', '/devices/groups', { body: '{"name":""}' })).status).toBe(400);
});
