/**
 * A TCP connection to each host:port of a server's address, before its driver is asked: a closed
 * port, an unknown host or a firewall then reads as exactly that (drivers often report only that
 * their retries ran out).
 */
import { connect } from 'node:net';

/**
 * host:port pairs of an address: a URL, a MongoDB host list, or Kafka's host:port list. A host
 * without a port gets `defaultPort`, or is left out when there is none to assume.
 */
export function endpointsOf(address: string, defaultPort?: number): { host: string; port: number }[] {
  // mongodb+srv names a DNS record, not a host to connect to.
  if (/^mongodb\+srv:/.test(address)) return [];
  const hosts = address
    .replace(/^[a-z+]+:\/\//i, '')
    .replace(/^[^/@]*@/, '')
    .replace(/[/?#].*$/, '');
  return hosts
    .split(',')
    .filter(Boolean)
    .flatMap((h) => {
      const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(h) ?? /^([^:]+)(?::(\d+))?$/.exec(h);
      const port = m?.[2] ? Number(m[2]) : defaultPort;
      return port === undefined ? [] : [{ host: m?.[1] ?? h, port }];
    });
}

export function tcpReach(host: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const fail = (why: string) => {
      socket.destroy();
      reject(new Error(`cannot connect to ${host}:${port}: ${why}`));
    };
    socket.setTimeout(timeoutMs, () => fail(`no answer within ${timeoutMs} ms`));
    socket.once('error', (e: NodeJS.ErrnoException) => fail(e.code ?? e.message));
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
  });
}
