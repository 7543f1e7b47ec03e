/**
 * A small kustomize renderer for the deployment checks (no kustomize binary ships on npm): the
 * subset k8s/ uses, and an error for anything else, so a kustomization using a field this does
 * not implement fails the check instead of being rendered wrongly. Implements: resources (files
 * and kustomization directories), configMapGenerator (literals; behavior create/merge) with
 * generatorOptions.disableNameSuffixHash, patches (a strategic-merge patch file, or an inline
 * JSON 6902 / strategic-merge patch with a kind/name target), images (newName/newTag), namespace,
 * labels (metadata only). Order as kustomize: resources, generators, patches, then namespace,
 * labels and images.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { ROOT } from './deploy.helpers.js';

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
} & Record<string, unknown>;
type Json = Record<string, unknown>;

const KNOWN = new Set(['apiVersion', 'kind', 'resources', 'configMapGenerator', 'generatorOptions', 'patches', 'images', 'namespace', 'labels']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function loadYamlDocs(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => {
      if (d.errors.length) throw new Error(`${file}: ${d.errors[0]!.message}`);
      return d.toJS() as K8sObject | null;
    })
    .filter((d): d is K8sObject => d !== null);
}

/** Strategic merge as kustomize does it for these kinds: maps merge, lists of named items merge by name, other lists are replaced. */
export function strategicMerge(target: unknown, patch: unknown): unknown {
  if (isObject(target) && isObject(patch)) {
    const out: Json = { ...target };
    for (const [k, v] of Object.entries(patch)) out[k] = k in target ? strategicMerge(target[k], v) : v;
    return out;
  }
  if (Array.isArray(target) && Array.isArray(patch) && [...target, ...patch].every((x) => isObject(x) && typeof x.name === 'string')) {
    const out = target.map((x) => {
      const p = patch.find((y) => (y as Json).name === (x as Json).name);
      return p ? strategicMerge(x, p) : x;
    });
    for (const p of patch) if (!target.some((x) => (x as Json).name === (p as Json).name)) out.push(p);
    return out;
  }
  return patch;
}

function jsonPatch(doc: K8sObject, ops: Array<{ op: string; path: string; value?: unknown }>): K8sObject {
  const out = structuredClone(doc) as Json;
  for (const o of ops) {
    const segs = o.path
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = segs.pop()!;
    let at: unknown = out;
    for (const s of segs) {
      at = (at as Json)[s];
      if (at === undefined) throw new Error(`patch path ${o.path} does not exist in ${doc.kind}/${doc.metadata.name}`);
    }
    const parent = at as Record<string, unknown>;
    const list = Array.isArray(at) ? (at as unknown[]) : undefined;
    if (o.op === 'replace') {
      if (!(last in parent)) throw new Error(`patch replaces missing ${o.path} in ${doc.kind}/${doc.metadata.name}`);
      parent[last] = o.value;
    } else if (o.op === 'add') {
      if (list) list.splice(last === '-' ? list.length : Number(last), 0, o.value);
      else parent[last] = o.value;
    } else if (o.op === 'remove') {
      if (list) list.splice(Number(last), 1);
      else delete parent[last];
    } else throw new Error(`unsupported JSON patch op '${o.op}'`);
  }
  return out as K8sObject;
}

function podSpecs(doc: K8sObject): Json[] {
  const spec = doc.spec as Json | undefined;
  const template = (spec?.template as Json | undefined)?.spec as Json | undefined;
  return template ? [template] : [];
}

export function render(dir: string): K8sObject[] {
  const k = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Json;
  for (const key of Object.keys(k)) if (!KNOWN.has(key)) throw new Error(`${dir}/kustomization.yaml: '${key}' is not supported by this renderer`);
  let docs: K8sObject[] = [];
  for (const r of (k.resources as string[] | undefined) ?? []) {
    const p = join(dir, r);
    docs.push(...(statSync(p).isDirectory() ? render(p) : loadYamlDocs(p)));
  }
  const options = (k.generatorOptions ?? {}) as Json;
  for (const g of (k.configMapGenerator as Json[] | undefined) ?? []) {
    if (options.disableNameSuffixHash !== true) throw new Error(`${dir}: generated names need generatorOptions.disableNameSuffixHash here`);
    const data = Object.fromEntries(
      ((g.literals as string[] | undefined) ?? []).map((l) => {
        const i = l.indexOf('=');
        return [l.slice(0, i), l.slice(i + 1)];
      }),
    );
    const unsupported = Object.keys(g).filter((x) => !['name', 'literals', 'behavior'].includes(x));
    if (unsupported.length) throw new Error(`${dir}: configMapGenerator ${unsupported.join(', ')} is not supported`);
    const existing = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === g.name);
    if (g.behavior === 'merge' || g.behavior === 'replace') {
      if (!existing) throw new Error(`${dir}: configMapGenerator ${String(g.name)} merges into a ConfigMap the base does not have`);
      existing.data = g.behavior === 'merge' ? { ...(existing.data as Json), ...data } : data;
    } else {
      if (existing) throw new Error(`${dir}: ConfigMap ${String(g.name)} generated twice`);
      docs.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: g.name as string }, data });
    }
  }
  for (const p of (k.patches as Json[] | undefined) ?? []) {
    const body = p.path ? readFileSync(join(dir, p.path as string), 'utf8') : (p.patch as string);
    const patch = parse(body) as unknown;
    const target = p.target as { kind?: string; name?: string } | undefined;
    const matches = (d: K8sObject) =>
      target
        ? (!target.kind || d.kind === target.kind) && (!target.name || new RegExp(`^${target.name}$`).test(d.metadata.name))
        : d.kind === (patch as K8sObject).kind && d.metadata.name === (patch as K8sObject).metadata.name;
    let hit = 0;
    docs = docs.map((d) => {
      if (!matches(d)) return d;
      hit++;
      return Array.isArray(patch)
        ? jsonPatch(d, patch as never)
        : (strategicMerge(d, { ...(patch as Json), metadata: { ...((patch as K8sObject).metadata ?? {}), name: d.metadata.name } }) as K8sObject);
    });
    if (hit === 0) throw new Error(`${dir}: a patch (${String(p.path ?? JSON.stringify(target))}) matches no resource`);
  }
  if (typeof k.namespace === 'string') for (const d of docs) d.metadata.namespace = k.namespace;
  for (const l of (k.labels as Json[] | undefined) ?? []) {
    if (l.includeSelectors || l.includeTemplates) throw new Error(`${dir}: labels with includeSelectors/includeTemplates are not supported`);
    for (const d of docs) d.metadata.labels = { ...(d.metadata.labels ?? {}), ...(l.pairs as Record<string, string>) };
  }
  for (const img of (k.images as Json[] | undefined) ?? []) {
    for (const d of docs) {
      for (const spec of podSpecs(d)) {
        for (const c of [...((spec.containers as Json[]) ?? []), ...((spec.initContainers as Json[]) ?? [])]) {
          const [name, tag] = String(c.image).split(':');
          if (name !== img.name && name !== img.newName) continue;
          c.image = `${(img.newName as string | undefined) ?? name}:${(img.newTag as string | undefined) ?? tag}`;
        }
      }
    }
  }
  return docs;
}

/** k8s/secrets.env.example as the Secret's data: the values renderedEnv gives the Secret's keys. */
export const SECRET_EXAMPLE: Record<string, string> = Object.fromEntries(
  readFileSync(join(ROOT, 'k8s/secrets.env.example'), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
);

/**
 * A container's environment as the kubelet builds it: its ConfigMaps (envFrom, in order), then its
 * own env; a Secret's key takes its value from `secrets` and must be listed there.
 */
export function renderedEnv(docs: K8sObject[], c: Json, secrets: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of (c.envFrom as Json[] | undefined) ?? []) {
    const name = (from.configMapRef as Json | undefined)?.name;
    const cm = docs.find((m) => m.kind === 'ConfigMap' && m.metadata.name === name);
    if (!cm) throw new Error(`ConfigMap ${String(name)} is not in the manifests`);
    Object.assign(env, cm.data);
  }
  for (const e of (c.env as Json[] | undefined) ?? []) {
    const ref = (e.valueFrom as Json | undefined)?.secretKeyRef as Json | undefined;
    if (ref) {
      const key = ref.key as string;
      if (!(key in secrets)) throw new Error(`${key} is read from the Secret but k8s/secrets.env.example does not list it`);
      env[e.name as string] = secrets[key]!;
    } else env[e.name as string] = e.value as string;
  }
  return env;
}
