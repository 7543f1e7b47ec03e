/** The all-in-one's settings take the subgraphs' own declarations (services/<name>/src/config.ts), not copies. */
import { loadConfig } from '@pylon/kit';
import { devicesOptions } from '@pylon/devices/config';
import { oauthSettings } from '@pylon/identity/config';
import { gatewayEnv } from '@pylon/gateway/config';
import { allInOneEnv, docsEnabled } from '../src/all-in-one.config.js';

test('the all-in-one reads the same declarations', () => {
  const env = loadConfig(allInOneEnv, { DEVICE_ONLINE_WINDOW_SECONDS: '120', DEVICE_SNAP_MAX_BYTES: '50000' });
  expect(devicesOptions(env)).toMatchObject({ onlineWindowSeconds: 120, settings: { maxSnapBytes: 50_000 } });
  expect(() => loadConfig(allInOneEnv, { DEVICE_ONLINE_WINDOW_SECONDS: '5' })).toThrow(/DEVICE_ONLINE_WINDOW_SECONDS/);
});

test('identity settings: OAuth in the all-in-one, principal cache and failure limits at every edge', () => {
  const env = loadConfig(allInOneEnv, { OAUTH_REDIRECT_URIS: 'https://app.example/cb', PRINCIPAL_CACHE_SECONDS: '5' });
  expect(oauthSettings(env)).toEqual({ clientId: 'pylon-public', redirectUris: ['https://app.example/cb'], accessTokenSeconds: 900, audience: undefined });
  expect(env.PRINCIPAL_CACHE_SECONDS).toBe(5);
  const urls = Object.fromEntries(['IDENTITY', 'DEVICES', 'CONTENT', 'SCHEDULING', 'DATATABLES', 'ANALYTICS'].map((n) => [`${n}_URL`, 'http://127.0.0.1:1']));
  const gw = loadConfig(gatewayEnv, { ...urls, SIGNAGE_INTERNAL_SECRET: 'x'.repeat(32), AUTH_FAILURE_POINTS: '7' });
  expect(gw.AUTH_FAILURE_POINTS).toBe(7);
  expect(() => loadConfig(allInOneEnv, { OAUTH_REDIRECT_URIS: 'not a url' })).toThrow(/OAUTH_REDIRECT_URIS/);
});

test('browser docs: on by default, off in production unless DOCS_ENABLED=true; other values are refused', () => {
  expect(docsEnabled(loadConfig(allInOneEnv, {}))).toBe(true);
  expect(docsEnabled(loadConfig(allInOneEnv, { NODE_ENV: 'production' }))).toBe(false);
  expect(docsEnabled(loadConfig(allInOneEnv, { NODE_ENV: 'production', DOCS_ENABLED: 'true' }))).toBe(true);
  expect(docsEnabled(loadConfig(allInOneEnv, { DOCS_ENABLED: 'false' }))).toBe(false);
  expect(() => loadConfig(allInOneEnv, { DOCS_ENABLED: 'yes' })).toThrow(/DOCS_ENABLED/);
});

test('BLOBS_DRIVER=s3: the bucket is required and credentials go in pairs, every problem reported at once', () => {
  let message = '';
  try {
    loadConfig(allInOneEnv, { BLOBS_DRIVER: 's3', S3_ACCESS_KEY_ID: 'AKIDEXAMPLE', S3_ENDPOINT: 'not a url' });
  } catch (e) {
    message = (e as Error).message;
  }
  expect(message).toMatch(/S3_BUCKET/);
  expect(message).toMatch(/S3_SECRET_ACCESS_KEY/);
  expect(message).toMatch(/S3_ENDPOINT/);
  const ok = loadConfig(allInOneEnv, { BLOBS_DRIVER: 's3', S3_BUCKET: 'pylon-media', S3_ENDPOINT: 'http://127.0.0.1:9000' });
  expect(ok).toMatchObject({ BLOBS_DRIVER: 's3', S3_BUCKET: 'pylon-media', S3_REGION: 'us-east-1' });
});
