/**
 * Issue 34, L5: an IPv4-compatible IPv6 address (`[::127.0.0.1]`, which URL parsing writes
 * `[::7f00:1]`) is refused by the outbound agents like the IPv4 address it embeds; ipaddr.js calls
 * the ::/96 range "unicast", so request-filtering-agent let it through. Checked through a real
 * request on the agents (refused before any connection).
 */
import { get } from 'node:http';
import { isRefusedAddress, outboundAgents } from '../../src/http/outbound-url.js';

function attempt(url: string, allowList: string[]): Promise<string> {
  const agents = outboundAgents(allowList);
  return new Promise<string>((resolve) => {
    const req = get(url, { agent: agents.http, timeout: 10_000 }, (res) => {
      res.resume();
      resolve(`answered ${res.statusCode}`);
    });
    req.on('error', (e) => resolve(isRefusedAddress(e) ? 'refused' : `failed: ${e.message}`));
    req.on('timeout', () => req.destroy(new Error('timeout')));
  }).finally(() => agents.destroy());
}

test.each(['http://[::127.0.0.1]:9/', 'http://[::7f00:1]:9/', 'http://[::a00:1]:9/', 'http://[::a9fe:a9fe]/latest/meta-data/'])(
  '%s is refused, with or without loopback on the allow-list',
  async (url) => {
    expect(await attempt(url, [])).toBe('refused');
    expect(await attempt(url, ['127.0.0.1'])).toBe('refused');
  },
);
