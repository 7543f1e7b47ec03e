/**
 * patches/@apollo__gateway@2.14.4.patch (pnpm-workspace.yaml patchedDependencies): @apollo/gateway
 * loads the OpenTelemetry modules of Apollo's usage reporting, which Pylon turns off, and
 * make-fetch-happen, the default fetcher of a remote data source or Uplink, only when one is given
 * none, instead of at require time. Checked in a plain node process, as the gateway loads it.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const GATEWAY_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Runs `code` (CommonJS) in a fresh node process in gateway/ and parses what it prints. */
function inNode<T>(code: string): T {
  return JSON.parse(execFileSync(process.execPath, ['-e', code], { cwd: GATEWAY_DIR, encoding: 'utf8', timeout: 60_000 })) as T;
}

const REPORTING_ONLY = /@opentelemetry[+/](sdk-metrics|resources|resource-detector-[a-z-]+|exporter-metrics-otlp-http|semantic-conventions)[@/]/;

describe('the @apollo/gateway patch', () => {
  test('requiring @apollo/gateway loads the tracer API but none of the usage-reporting modules', () => {
    const loaded = inNode<string[]>(`require('@apollo/gateway'); console.log(JSON.stringify(Object.keys(require.cache)))`);
    expect(loaded.some((p) => /@opentelemetry[+/]api[@/]/.test(p))).toBe(true);
    expect(loaded.filter((p) => REPORTING_ONLY.test(p))).toEqual([]);
    expect(loaded.filter((p) => /make-fetch-happen[@/]/.test(p))).toEqual([]);
  });

  test('a remote data source and Uplink without a fetcher of their own get make-fetch-happen, on first use', () => {
    const made = inNode<{ before: boolean; remote: string; uplink: string; after: boolean }>(
      `const gw = require('@apollo/gateway');
       const loaded = () => Object.keys(require.cache).some((p) => /make-fetch-happen[@/]/.test(p));
       const before = loaded();
       const remote = new gw.RemoteGraphQLDataSource({ url: 'http://127.0.0.1:1/graphql' });
       const uplink = new gw.UplinkSupergraphManager({ apiKey: 'k', graphRef: 'g@v' });
       console.log(JSON.stringify({ before, remote: typeof remote.fetcher, uplink: typeof uplink.fetcher, after: loaded() }))`,
    );
    expect(made).toEqual({ before: false, remote: 'function', uplink: 'function', after: true });
  });

  test('given a fetcher of their own (the distributed gateway signs its requests through one), neither loads make-fetch-happen', () => {
    const made = inNode<{ remote: boolean; uplink: boolean; loaded: boolean }>(
      `const gw = require('@apollo/gateway');
       const mine = async () => ({});
       const remote = new gw.RemoteGraphQLDataSource({ url: 'http://127.0.0.1:1/graphql', fetcher: mine });
       const uplink = new gw.UplinkSupergraphManager({ apiKey: 'k', graphRef: 'g@v', fetcher: mine });
       const loaded = Object.keys(require.cache).some((p) => /make-fetch-happen[@/]/.test(p));
       console.log(JSON.stringify({ remote: remote.fetcher === mine, uplink: uplink.fetcher === mine, loaded }))`,
    );
    expect(made).toEqual({ remote: true, uplink: true, loaded: false });
  });

  test('the attribute names it spells out are the semantic conventions', () => {
    const names = inNode<{ provider: string; platform: string }>(
      `const path = require.resolve('@opentelemetry/semantic-conventions/incubating', { paths: [require.resolve('@apollo/gateway')] });
       const c = require(path);
       console.log(JSON.stringify({ provider: c.ATTR_CLOUD_PROVIDER, platform: c.ATTR_CLOUD_PLATFORM }))`,
    );
    expect(names).toEqual({ provider: 'cloud.provider', platform: 'cloud.platform' });
  });

  test('every module it defers still resolves from @apollo/gateway, and loads', () => {
    // Not through createDataCollectionExporter: that probes the cloud metadata endpoints.
    const deferred = inNode<{ id: string; keys: number }[]>(
      `const fs = require('node:fs');
       const file = require.resolve('@apollo/gateway/dist/utilities/opentelemetry.js');
       const ids = [...fs.readFileSync(file, 'utf8').matchAll(/= lazy\\("([^"]+)"\\)/g)].map((m) => m[1]);
       console.log(JSON.stringify(ids.map((id) => ({ id, keys: Object.keys(require(require.resolve(id, { paths: [file] }))).length }))))`,
    );
    expect(deferred.map((d) => d.id).sort()).toEqual([
      '@opentelemetry/exporter-metrics-otlp-http',
      '@opentelemetry/resource-detector-alibaba-cloud',
      '@opentelemetry/resource-detector-aws',
      '@opentelemetry/resource-detector-azure',
      '@opentelemetry/resource-detector-gcp',
      '@opentelemetry/resources',
      '@opentelemetry/sdk-metrics',
      '@opentelemetry/semantic-conventions/incubating',
    ]);
    for (const d of deferred) expect(d.keys).toBeGreaterThan(0);
  });
});
