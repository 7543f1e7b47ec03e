import { XMLValidator } from 'fast-xml-parser';
import { escapeXml, renderXml, singular } from '../src/render/xml.renderer.js';
import { renderRss } from '../src/render/rss.renderer.js';
import { LEGACY_ACCOUNT_FIELDS, toLegacyAccount } from '../src/resources/account.record.js';
import { toLegacyDevice } from '../src/resources/device.record.js';

const DECL = '<?xml version="1.0" encoding="UTF-8"?>';

describe('renderXml', () => {
  it('writes objects as elements in key order, nulls as nil elements', () => {
    expect(renderXml('account', { name: 'A & B <Co>', fax: null, n: 1.5, ok: true })).toBe(
      `${DECL}<account><name>A &amp; B &lt;Co&gt;</name><fax nil="true"/><n>1.5</n><ok>true</ok></account>`,
    );
  });

  it('writes lists with the item element, nested arrays singularised', () => {
    expect(
      renderXml(
        'devices',
        [
          { id: '1', tags: ['a', 'b'] },
          { id: '2', tags: [] },
        ],
        'device',
      ),
    ).toBe(`${DECL}<devices><device><id>1</id><tags><tag>a</tag><tag>b</tag></tags></device><device><id>2</id><tags></tags></device></devices>`);
    expect(singular('categories')).toBe('category');
    expect(singular('address')).toBe('item');
  });

  it('keeps the document well-formed whatever the data holds', () => {
    const xml = renderXml('x', { 'bad name': '\u0000\u0008ok\uD800', xmlns: '"\'', '1st': 'ok' });
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('<entry key="bad name">\uFFFD\uFFFDok\uFFFD</entry>');
    expect(escapeXml('"\'')).toBe('&quot;&apos;');
  });
});

describe('renderRss', () => {
  it('writes an RSS 2.0 channel', () => {
    const xml = renderRss({
      title: 'P & Q',
      link: 'http://x/',
      description: 'd',
      items: [{ title: 'one', pubDate: '2024-01-02T03:04:05Z', enclosure: { url: 'http://x/a.jpg?a=1&b=2', type: 'image/jpeg', length: 10 } }],
    });
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('<rss version="2.0"><channel><title>P &amp; Q</title>');
    expect(xml).toContain('<pubDate>Tue, 02 Jan 2024 03:04:05 GMT</pubDate>');
    expect(xml).toContain('url="http://x/a.jpg?a=1&amp;b=2"');
  });
});

describe('legacy records', () => {
  it('the account record has exactly the spec fields, in order', () => {
    const record = toLegacyAccount({
      id: 'acc',
      name: 'N',
      businessName: 'B',
      address1: null,
      address2: null,
      city: 'C',
      state: 'S',
      postalCode: 'P',
      country: 'NL',
      phone: '1',
      fax: null,
      primaryContactId: 'u1',
      secondaryContactId: null,
      createdOn: '2024-05-06T07:08:09.123Z',
      timezone: 'Europe/Amsterdam',
    });
    expect(Object.keys(record)).toEqual([...LEGACY_ACCOUNT_FIELDS]);
    expect(record.created_on).toBe('2024-05-06T07:08:09Z');
    expect(record.address_1).toBeNull();
  });

  it('the device record is snake_case', () => {
    const d = toLegacyDevice({
      id: 'd',
      name: 'n',
      isOnline: true,
      tags: ['t'],
      groupId: null,
      groupName: null,
      deviceType: null,
      pingData: { cpuUsage: 1, memoryUsage: null, diskUsage: 2, playerVersion: 'v', ipAddress: 'ip', timestamp: '2024-01-01T00:00:00.000Z' },
      location: null,
    });
    expect(Object.keys(d)).toEqual(['id', 'name', 'is_online', 'tags', 'group_id', 'group_name', 'device_type', 'ping_data', 'location', 'registration_key']);
    expect(d.ping_data).toEqual({ cpu_usage: 1, memory_usage: null, disk_usage: 2, player_version: 'v', ip_address: 'ip', timestamp: '2024-01-01T00:00:00Z' });
  });
});
