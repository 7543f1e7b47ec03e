/**
 * k8s/: each overlay rendered (test/deploy/kustomize.ts) and every manifest validated against the
 * Kubernetes JSON schemas of the kubernetes-models package; then what an operator relies on:
 * pod hardening, probes, resources, pinned images, a workload per role (a StatefulSet with a claim
 * for /data where the role spools pushed records), PDBs, HPAs, network policies, Ingress routes, the migrations Job, and each container's environment checked against
 * its role's config schema (a renamed setting fails here).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkRoleEnv, ROLE_CONFIGS } from '../../launcher/src/role-configs.js';
import { roleEntry, ROLES } from '../../launcher/src/roles.js';
import { ROOT } from './deploy.helpers.js';
import { render, renderedEnv, SECRET_EXAMPLE, type K8sObject } from './kustomize.js';
import { imageFacts } from './sandbox.js';

type Json = Record<string, any>;

const OVERLAYS = ['base', 'overlays/dev', 'overlays/production'];
const rendered = Object.fromEntries(OVERLAYS.map((o) => [o, render(join(ROOT, 'k8s', o))])) as Record<string, K8sObject[]>;

/** kubernetes-models/<group>/<version>/<Kind>.js validates one object against its schema. */
async function validate(doc: K8sObject): Promise<void> {
  const [group, version] = doc.apiVersion.includes('/') ? doc.apiVersion.split('/') : ['', doc.apiVersion];
  const mod = (await import(`kubernetes-models/${group ? `${group}/` : ''}${version}/${doc.kind}`)) as Record<string, new (o: unknown) => { validate(): void }>;
  const Model = mod[doc.kind];
  if (!Model) throw new Error(`no schema for ${doc.apiVersion} ${doc.kind}`);
  new Model(doc).validate();
}

const of = (docs: K8sObject[], kind: string) => docs.filter((d) => d.kind === kind) as Array<K8sObject & Json>;
/** The long-running roles' workloads: Deployments, and StatefulSets where a spool must outlive the pod. */
const servers = (docs: K8sObject[]) => [...of(docs, 'Deployment'), ...of(docs, 'StatefulSet')];
const roleOf = (d: Json): string => d.spec.template.spec.containers[0].args[0];

const containerEnv = (docs: K8sObject[], c: Json) => renderedEnv(docs, c, SECRET_EXAMPLE);

describe.each(OVERLAYS)('k8s/%s', (overlay) => {
  const docs = rendered[overlay]!;
  const workloads = [...servers(docs), ...of(docs, 'Job')];

  test('every manifest is valid against the Kubernetes schemas', async () => {
    expect(docs.length).toBeGreaterThan(40);
    for (const d of docs) await expect(validate(d).then(() => `${d.kind}/${d.metadata.name}`)).resolves.toBe(`${d.kind}/${d.metadata.name}`);
    expect(of(docs, 'Secret')).toEqual([]);
  });

  test('a workload per server role and worker, the migrations and self-check Jobs, each with the image pinned by version', () => {
    const deployed = servers(docs).map(roleOf).sort();
    expect(deployed).toEqual(
      ROLES.filter((r) => ['subgraph', 'edge', 'worker'].includes(r.kind))
        .map((r) => r.name)
        .sort(),
    );
    expect(of(docs, 'Job').map(roleOf)).toEqual(['migrate', 'verify']); // verify: test/deploy/verify-job.test.ts
    for (const w of workloads) {
      const image: string = w.spec.template.spec.containers[0].image;
      expect({ name: w.metadata.name, image }).toEqual({ name: w.metadata.name, image: expect.stringMatching(/:\d+\.\d+\.\d+$/) });
    }
  });

  test('pods run hardened: non-root, read-only root filesystem, no privilege escalation, all capabilities dropped, resources bounded', () => {
    for (const w of workloads) {
      const pod = w.spec.template.spec;
      expect({ name: w.metadata.name, runAsNonRoot: pod.securityContext?.runAsNonRoot, token: pod.automountServiceAccountToken }).toEqual({
        name: w.metadata.name,
        runAsNonRoot: true,
        token: false,
      });
      for (const c of pod.containers) {
        expect({ name: w.metadata.name, sc: c.securityContext }).toMatchObject({
          name: w.metadata.name,
          sc: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
        });
        for (const k of ['requests', 'limits'])
          for (const r of ['cpu', 'memory'])
            expect({ name: w.metadata.name, [`${k}.${r}`]: c.resources?.[k]?.[r] }).toEqual({ name: w.metadata.name, [`${k}.${r}`]: expect.anything() });
        const tmp = c.volumeMounts?.find((m: Json) => m.mountPath === '/tmp');
        expect({ name: w.metadata.name, tmp: Boolean(tmp) }).toEqual({ name: w.metadata.name, tmp: true });
      }
    }
  });

  test("every server role writes only where it mounts a volume: the image's data dir (spools) and /tmp", () => {
    const { env: imageEnv } = imageFacts();
    for (const d of servers(docs)) {
      const c = d.spec.template.spec.containers[0];
      const mounts = ((c.volumeMounts ?? []) as Json[]).filter((m) => !m.readOnly).map((m) => m.mountPath as string);
      const env = { ...imageEnv, ...containerEnv(docs, c) };
      // Every directory setting (SIGNAGE_DATA_DIR, where the spools default to; AUDIT_SPOOL_DIR) lies in a mounted volume.
      const dirs = Object.entries(env).filter(([k]) => k.endsWith('_DIR'));
      expect(dirs.map(([k]) => k)).toContain('SIGNAGE_DATA_DIR');
      for (const [k, v] of dirs)
        expect({ name: d.metadata.name, [k]: v, mounted: mounts.some((m) => v === m || v.startsWith(`${m}/`)) }).toEqual({
          name: d.metadata.name,
          [k]: v,
          mounted: true,
        });
    }
  });

  test('every role that spools pushed records keeps /data on a claim that survives a reschedule (a StatefulSet claim template)', () => {
    // Which roles spool is read from their composition roots: a push-event producer (created
    // directly or by composition's closingPushEvents), an audit sink or a facade process (whose
    // audit sink spools) writes SIGNAGE_DATA_DIR/spool.
    const spools = (r: (typeof ROLES)[number]) =>
      /createPushEventProducer|closingPushEvents|createAuditSink|runFacadeProcess|BufferedPublisher/.test(
        readFileSync(join(ROOT, roleEntry(r, false)), 'utf8'),
      );
    const spooling = ROLES.filter((r) => ['subgraph', 'edge', 'worker'].includes(r.kind) && spools(r)).map((r) => r.name);
    expect(spooling.sort()).toEqual(['content', 'datatables', 'devices', 'gateway', 'identity', 'legacy', 'rest', 'scheduling', 'webhook-worker']);
    for (const d of servers(docs)) {
      const role = roleOf(d);
      const pod = d.spec.template.spec;
      const data = ((pod.containers[0].volumeMounts ?? []) as Json[]).find((m) => m.mountPath === '/data');
      const claim = ((d.spec.volumeClaimTemplates ?? []) as Json[]).find((t) => t.metadata.name === data?.name);
      const podVolume = ((pod.volumes ?? []) as Json[]).find((v) => v.name === data?.name);
      const onClaim = d.kind === 'StatefulSet' && claim !== undefined && podVolume === undefined;
      expect({ role, kind: d.kind, onClaim }).toEqual({ role, kind: spooling.includes(role) ? 'StatefulSet' : 'Deployment', onClaim: spooling.includes(role) });
      if (!onClaim) continue;
      expect({ role, modes: claim.spec.accessModes, size: claim.spec.resources?.requests?.storage }).toEqual({
        role,
        modes: ['ReadWriteOnce'],
        size: expect.any(String),
      });
      // Kept when scaled down or deleted: a spool left on a claim is republished when its pod comes back.
      expect({ role, retention: d.spec.persistentVolumeClaimRetentionPolicy }).toEqual({ role, retention: { whenDeleted: 'Retain', whenScaled: 'Retain' } });
      // The governing Service exists (serviceName).
      expect({ role, service: of(docs, 'Service').some((x) => x.metadata.name === d.spec.serviceName) }).toEqual({ role, service: true });
    }
  });

  test("spools on a pod's emptyDir never hold what a player was told is stored: devices acknowledges player records from the stream only", () => {
    for (const d of servers(docs)) {
      const pod = d.spec.template.spec;
      const c = pod.containers[0];
      const data = ((c.volumeMounts ?? []) as Json[]).find((m) => m.mountPath === '/data');
      const survivesThePod = data !== undefined && !(pod.volumes as Json[]).find((v) => v.name === data.name)?.emptyDir;
      if (roleOf(d) === 'devices' && !survivesThePod)
        expect({ name: d.metadata.name, PLAYER_RECORDS_SPOOL: containerEnv(docs, c).PLAYER_RECORDS_SPOOL }).toEqual({
          name: d.metadata.name,
          PLAYER_RECORDS_SPOOL: 'false',
        });
    }
  });

  test('serving pods have a startup probe, readiness on /readyz and liveness on /healthz', () => {
    for (const d of servers(docs).filter((x) => ROLES.find((r) => r.name === roleOf(x))?.port)) {
      const c = d.spec.template.spec.containers[0];
      expect({
        name: d.metadata.name,
        startup: c.startupProbe?.httpGet?.path,
        ready: c.readinessProbe?.httpGet?.path,
        live: c.livenessProbe?.httpGet?.path,
      }).toEqual({
        name: d.metadata.name,
        startup: expect.any(String),
        ready: '/readyz',
        live: '/healthz',
      });
      expect(c.ports.find((p: Json) => p.name === 'http').containerPort).toBe(ROLES.find((r) => r.name === roleOf(d))!.port);
    }
  });

  test.each(ROLES.filter((r) => ROLE_CONFIGS[r.name] && r.kind !== 'cli' && r.kind !== 'all-in-one').map((r) => r.name))(
    'the %s container environment is valid for its role',
    (role) => {
      const w = workloads.find((x) => roleOf(x) === role)!;
      expect(w).toBeDefined();
      expect(checkRoleEnv(role, containerEnv(docs, w.spec.template.spec.containers[0]))).toEqual([]);
    },
  );

  test('PDBs for every workload; HPAs for the gateway, the facades, the telemetry consumer and the webhook worker', () => {
    const names = servers(docs).map((d) => d.metadata.name);
    const pdbs = of(docs, 'PodDisruptionBudget');
    for (const n of names) expect(pdbs.some((p) => p.metadata.name === n)).toBe(true);
    const hpas = of(docs, 'HorizontalPodAutoscaler').map((h) => h.spec.scaleTargetRef.name as string);
    // Each HPA names its target's kind too: one left on Deployment would scale nothing.
    for (const h of of(docs, 'HorizontalPodAutoscaler'))
      expect({ hpa: h.metadata.name, target: h.spec.scaleTargetRef.kind }).toEqual({
        hpa: h.metadata.name,
        target: servers(docs).find((d) => d.metadata.name === h.spec.scaleTargetRef.name)?.kind,
      });
    expect(hpas.sort()).toEqual(['pylon-gateway', 'pylon-legacy', 'pylon-rest', 'pylon-telemetry-consumer', 'pylon-webhook-worker']);
    for (const h of hpas) expect(names).toContain(h);
  });

  test('network policies: default deny; subgraphs reached only from the gateway and calling subgraphs; facades only from the ingress', () => {
    const pols = of(docs, 'NetworkPolicy');
    expect(pols.some((p) => Object.keys(p.spec.podSelector.matchLabels ?? {}).join() === 'app.kubernetes.io/name' && !p.spec.ingress)).toBe(true);
    const policy = (role: string) => pols.find((p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/component'] === role)!;
    const httpSources = (role: string) =>
      (policy(role).spec.ingress as Json[])
        .filter((r) => r.ports.some((p: Json) => p.port === 'http'))
        .flatMap((r) =>
          r.from.map(
            (f: Json) =>
              f.podSelector?.matchLabels?.['app.kubernetes.io/component'] ?? `ns:${f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name']}`,
          ),
        );
    const subgraphs = ROLES.filter((r) => r.kind === 'subgraph').map((r) => r.name);
    for (const s of subgraphs) {
      const from = httpSources(s);
      expect(from).toContain('gateway');
      for (const f of from) expect([...subgraphs, 'gateway', 'ns:ingress-nginx']).toContain(f);
      // Only the subgraphs with public routes (OAuth, player API) take ingress traffic.
      expect({ s, ingress: from.includes('ns:ingress-nginx') }).toEqual({ s, ingress: ['identity', 'devices'].includes(s) });
    }
    expect(httpSources('rest')).toEqual(['ns:ingress-nginx']);
    expect(httpSources('legacy')).toEqual(['ns:ingress-nginx']);
    // Every call a role's settings point at (a *_URL naming a subgraph's Service) is let through by
    // that subgraph's policy: a caller added without its policy entry is refused in the cluster.
    for (const d of servers(docs)) {
      const caller = d.spec.template.metadata.labels['app.kubernetes.io/component'] as string;
      const env = (d.spec.template.spec.containers as Json[]).flatMap((c) => (c.env ?? []) as Json[]);
      for (const e of env) {
        const target = /^http:\/\/pylon-([a-z-]+):/.exec(typeof e.value === 'string' ? e.value : '')?.[1];
        if (target && subgraphs.includes(target) && target !== caller)
          expect({ caller, target, allowed: httpSources(target).includes(caller) }).toEqual({ caller, target, allowed: true });
      }
    }
  });

  test('the Ingress routes GraphQL, REST, OAuth, docs and the player API, and legacy on its own host', () => {
    const [ing] = of(docs, 'Ingress');
    const routes = (ing!.spec.rules as Json[]).flatMap((r) => r.http.paths.map((p: Json) => `${r.host}${p.path} -> ${p.backend.service.name}`));
    const api = (ing!.spec.rules as Json[])[0]!.host;
    for (const [path, svc] of [
      ['/graphql', 'pylon-gateway'],
      ['/docs', 'pylon-gateway'],
      ['/connect', 'pylon-identity'],
      ['/.well-known', 'pylon-identity'],
      ['/player', 'pylon-devices'],
      ['/', 'pylon-rest'],
    ]) {
      expect(routes).toContain(`${api}${path} -> ${svc}`);
    }
    expect(routes.filter((r) => r.endsWith('pylon-legacy')).every((r) => !r.startsWith(api))).toBe(true);
    expect(routes.some((r) => r.endsWith('pylon-legacy'))).toBe(true);
  });
});

test('production runs at least two replicas of every server role and autoscales from two', () => {
  const docs = rendered['overlays/production']!;
  for (const d of servers(docs)) expect({ name: d.metadata.name, replicas: d.spec.replicas }).toEqual({ name: d.metadata.name, replicas: 2 });
  for (const h of of(docs, 'HorizontalPodAutoscaler')) expect(h.spec.minReplicas).toBe(2);
  expect(of(docs, 'Ingress')[0]!.spec.tls).toBeDefined();
});
