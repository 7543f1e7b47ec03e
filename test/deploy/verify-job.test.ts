/**
 * The self-check Job (k8s/base/roles/verify.yaml) in every overlay, rendered as k8s.test.ts renders
 * them: it runs the image's `verify` role, hardened like the migrations Job, once (no retry of a
 * failed check), and its environment (the roles' ConfigMap and Secret) is valid for the verify
 * settings and names all five servers, so no port of a deployment is checked on an embedded store.
 * With Docker Compose it runs as `docker compose run --rm migrate verify` (the migrations job's
 * container and backend settings, the verify role): that environment is checked the same way.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { PROCESS_ENV } from '../../launcher/src/role-configs.js';
import { roleEntry, roleNamed } from '../../launcher/src/roles.js';
import { verifyEnv } from '../../launcher/src/verify.config.js';
import { interpolate, ROOT } from './deploy.helpers.js';
import { render, renderedEnv, SECRET_EXAMPLE, type K8sObject } from './kustomize.js';

type Json = Record<string, any>;

test('the verify role is in the role table and its entry exists', () => {
  const role = roleNamed('verify')!;
  expect(role).toMatchObject({ dir: 'launcher', file: 'verify.main' });
  expect(existsSync(join(ROOT, roleEntry(role, false)))).toBe(true);
});

/** The servers a verify environment names: all five, or the deployment is partly checked on embedded stores. */
function serversNamed(env: Record<string, string>) {
  const known = new Set([...Object.keys(verifyEnv.shape), ...PROCESS_ENV]);
  const parsed = verifyEnv.parse(env);
  return {
    unknown: Object.keys(env).filter((k) => !known.has(k)),
    kafka: parsed.KAFKA_BROKERS.length > 0,
    clickhouse: Boolean(parsed.CLICKHOUSE_URL),
    mongo: Boolean(parsed.MONGO_URL),
    redis: Boolean(parsed.REDIS_URL),
    s3: Boolean(parsed.S3_BUCKET),
  };
}
const ALL_FIVE = { unknown: [], kafka: true, clickhouse: true, mongo: true, redis: true, s3: true };

test("docker compose run --rm migrate verify: the migrations container's backend settings name all five servers", () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, unknown> }>;
  };
  const raw = compose.services.migrate!.environment ?? {};
  // Its own setting, not one of verify's: the bootstrap key stays with the migrations job.
  const env = Object.fromEntries(
    Object.entries(raw)
      .filter(([k]) => k !== 'SIGNAGE_BOOTSTRAP_API_KEY')
      .map(([k, v]) => [k, interpolate(String(v ?? ''), {})]),
  );
  expect(serversNamed(env)).toEqual(ALL_FIVE);
});

describe.each(['base', 'overlays/dev', 'overlays/production'])('k8s/%s: the pylon-verify Job', (overlay) => {
  const docs = render(join(ROOT, 'k8s', overlay)) as Array<K8sObject & Json>;
  const job = docs.find((d) => d.kind === 'Job' && d.metadata.name === 'pylon-verify')!;
  const pod = job?.spec.template.spec;
  const c = pod?.containers[0];

  test('runs the verify role once, bounded, hardened like every Pylon pod', () => {
    expect(job).toBeDefined();
    expect(c.args).toEqual(['verify']);
    expect(c.image).toMatch(/:\d+\.\d+\.\d+$/);
    expect(job.spec.backoffLimit).toBe(0);
    expect(job.spec.activeDeadlineSeconds).toBeGreaterThan(0);
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    // Its only writable place: /tmp (embedded stores, had a port no server), an emptyDir.
    expect(c.volumeMounts).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
    expect(pod.volumes.find((v: Json) => v.name === 'tmp').emptyDir).toBeDefined();
    const policy = docs.find((d) => d.kind === 'NetworkPolicy' && d.metadata.name === 'pylon-verify')!;
    expect(policy.spec).toMatchObject({ podSelector: { matchLabels: { 'app.kubernetes.io/component': 'verify' } }, ingress: [] });
  });

  test('its environment is the roles’ settings, valid for verify, naming all five servers', () => {
    // Throws naming a Secret key that k8s/secrets.env.example does not list.
    const env = renderedEnv(docs, c, SECRET_EXAMPLE);
    expect(serversNamed(env)).toEqual(ALL_FIVE);
  });
});
