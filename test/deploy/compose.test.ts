/**
 * docker-compose.yml, read as Compose reads it (YAML with merge keys, `${VAR}` interpolation):
 * every Pylon container's environment passes that role's config schema with no unknown names (a
 * renamed setting fails here), and the topology keeps what an operator relies on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { checkRoleEnv } from '../../launcher/src/role-configs.js';
import { ROLES } from '../../launcher/src/roles.js';
import { interpolate, ROOT } from './deploy.helpers.js';

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | number | boolean | null>;
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition: string }> | string[];
  volumes?: string[];
  read_only?: boolean;
  user?: string;
  restart?: string;
}

const VARS = { SIGNAGE_INTERNAL_SECRET: 'x'.repeat(64), SIGNAGE_BOOTSTRAP_API_KEY: 'bootstrap-key-0123456789' };
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const pylon = Object.entries(services).filter(([, s]) => s.build !== undefined);
const envOf = (s: Service): Record<string, string> =>
  Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(String(v ?? ''), VARS)]));

describe('docker-compose.yml', () => {
  test.each(pylon.map(([name, s]) => [name, s.command?.[0] ?? '']))("%s: its environment is valid for the '%s' role", (_name, role) => {
    const [, s] = pylon.find(([n]) => n === _name)!;
    expect(checkRoleEnv(role, envOf(s))).toEqual([]);
  });

  test('every server role runs, each from the one image, read-only, non-root, with a readiness health check', () => {
    const served = new Set(pylon.map(([, s]) => s.command?.[0]));
    const expected = ROLES.filter((r) => r.kind === 'subgraph' || r.kind === 'edge' || r.kind === 'job').map((r) => r.name);
    expect([...served].sort()).toEqual(expect.arrayContaining(expected.sort()));
    const images = new Set(pylon.map(([, s]) => s.image));
    expect(images.size).toBe(1);
    for (const [name, s] of pylon) {
      expect({ name, readOnly: s.read_only, user: s.user }).toEqual({ name, readOnly: true, user: '1000:1000' });
      if (s.command?.[0] === 'migrate') continue;
      expect({ name, health: s.healthcheck?.test?.join(' ') }).toEqual({ name, health: expect.stringContaining('/readyz') });
    }
  });

  test('start order waits on health: backends healthy, the migrations job completed, subgraphs before the gateway', () => {
    for (const [name, s] of Object.entries(services)) {
      const deps = s.depends_on ?? {};
      expect({ name, list: Array.isArray(deps) }).toEqual({ name, list: false });
      for (const [dep, { condition }] of Object.entries(deps as Record<string, { condition: string }>)) {
        expect(services[dep]).toBeDefined();
        const oneShot = services[dep]!.restart === 'no';
        expect({ name, dep, condition }).toEqual({ name, dep, condition: oneShot ? 'service_completed_successfully' : 'service_healthy' });
        if (!oneShot) expect({ dep, health: Boolean(services[dep]!.healthcheck) }).toEqual({ dep, health: true });
      }
    }
    const roleOf = (n: string) => services[n]?.command?.[0];
    for (const [name, s] of pylon) {
      if (roleOf(name) === 'migrate') continue;
      const deps = Object.keys(s.depends_on ?? {});
      const after = ROLES.find((r) => r.name === roleOf(name))?.kind === 'subgraph' ? 'migrate' : undefined;
      if (after) expect({ name, deps }).toEqual({ name, deps: expect.arrayContaining([after]) });
    }
    expect(Object.keys(services.gateway!.depends_on ?? {})).toEqual(
      expect.arrayContaining(['identity', 'devices', 'content', 'scheduling', 'datatables', 'analytics']),
    );
  });

  test('the scaled backends: Mongo replica set, Kafka KRaft with a volume, ClickHouse, Redis, S3 blobs', () => {
    expect(services.mongo!.command).toEqual(expect.arrayContaining(['--replSet']));
    expect(envOf(services.kafka!).KAFKA_PROCESS_ROLES).toContain('controller');
    expect(services.kafka!.volumes?.some((v) => v.startsWith('kafka:'))).toBe(true);
    expect(compose.volumes).toHaveProperty('kafka');
    expect(services.clickhouse).toBeDefined();
    expect(services.redis).toBeDefined();
    for (const [name, s] of pylon.filter(([, x]) => ROLES.find((r) => r.name === x.command?.[0])?.kind === 'subgraph')) {
      const env = envOf(s);
      expect({ name, documents: env.DOCUMENTS_DRIVER, blobs: env.BLOBS_DRIVER, migrate: env.MIGRATE_AT_START }).toEqual({
        name,
        documents: 'mongo',
        blobs: 's3',
        migrate: 'false',
      });
      expect(env.MONGO_URL).toContain('replicaSet=');
    }
  });

  test('a renamed setting is caught', () => {
    const [, s] = pylon.find(([, x]) => x.command?.[0] === 'content')!;
    const env = envOf(s);
    const renamed = { ...env, DOCUMENT_DRIVER: env.DOCUMENTS_DRIVER! };
    delete (renamed as Record<string, string>).DOCUMENTS_DRIVER;
    expect(checkRoleEnv('content', renamed)).toEqual(expect.arrayContaining([expect.stringContaining('DOCUMENT_DRIVER')]));
  });
});
