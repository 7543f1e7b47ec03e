import { loadConfig } from '@pylon/kit';
import { backendEnv, backendRules, usesDataDir } from '../src/backends.js';

const schema = backendEnv.check(...backendRules);

describe('backend settings', () => {
  test.each([
    'mongodb://mongo:27017/pylon',
    'mongodb://pylon:secret@mongo-0.mongo:27017,mongo-1.mongo:27017,mongo-2.mongo:27017/pylon?replicaSet=rs0&authSource=admin',
    'mongodb+srv://pylon:secret@cluster0.example.net/pylon?retryWrites=true',
  ])('a MongoDB connection string is accepted: %s', (url) => {
    expect(loadConfig(schema, { DOCUMENTS_DRIVER: 'mongo', MONGO_URL: url }).MONGO_URL).toBe(url);
  });

  test.each(['http://mongo:27017', 'mongo:27017', 'mongodb://'])('anything else is refused: %s', (url) => {
    expect(() => loadConfig(schema, { DOCUMENTS_DRIVER: 'mongo', MONGO_URL: url })).toThrow(/MONGO_URL/);
  });

  test('only embedded drivers use the data dir (stateless roles on server backends never touch the disk)', () => {
    const servers = loadConfig(schema, {
      DOCUMENTS_DRIVER: 'mongo',
      MONGO_URL: 'mongodb://m/p',
      ANALYTICS_DRIVER: 'clickhouse',
      CLICKHOUSE_URL: 'http://c:8123',
      BLOBS_DRIVER: 's3',
      S3_BUCKET: 'pylon',
    });
    expect(usesDataDir(servers, ['documents', 'analytics', 'blobs', 'cache', 'stream'])).toBe(false);
    const embedded = loadConfig(schema, {});
    expect(usesDataDir(embedded, ['cache', 'stream'])).toBe(false);
    expect(usesDataDir(embedded, ['documents'])).toBe(true);
    expect(loadConfig(schema, { MIGRATE_AT_START: 'false' }).MIGRATE_AT_START).toBe(false);
    expect(embedded.MIGRATE_AT_START).toBe(true);
  });

  test('CLICKHOUSE_CLUSTER: a plain cluster name turns on the cluster rendering; anything else is refused by name', () => {
    const base = { ANALYTICS_DRIVER: 'clickhouse', CLICKHOUSE_URL: 'http://c:8123' };
    expect(loadConfig(schema, base).CLICKHOUSE_CLUSTER).toBeUndefined();
    const cluster = loadConfig(schema, { ...base, CLICKHOUSE_CLUSTER: 'pylon_cluster' });
    expect(cluster.CLICKHOUSE_CLUSTER).toBe('pylon_cluster');
    expect(cluster.CLICKHOUSE_ZOOKEEPER_PATH).toBe('/clickhouse/tables/{shard}/{database}/{table}');
    expect(() => loadConfig(schema, { ...base, CLICKHOUSE_CLUSTER: "x'; DROP TABLE t" })).toThrow(/CLICKHOUSE_CLUSTER/);
  });
});
