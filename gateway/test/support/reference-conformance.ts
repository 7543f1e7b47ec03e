/**
 * Runtime conformance with the reference API: every response of our REST interface to a path the
 * reference describes is validated against the reference's response for that status, so a client
 * generated from the reference can read it. Installed for every jest file by conformance.setup.ts
 * as a wrapper around `fetch`; it looks only at origins registered with registerRestOrigin (the
 * REST base URL of a started server; never the legacy adapter, whose paths overlap).
 *
 * A mismatch throws from the `fetch` call, failing the test that made it, unless the one
 * allow-list (conformance-known-gaps.ts) names it. Each checked response is also appended to
 * $REST_CONFORMANCE_DIR (set by scripts/test-all.cjs) so scripts/check-rest-conformance.ts can tell,
 * after all jest workers are done, which shared operations were exercised and which allow-list
 * entries no longer occur. With survey set (REST_CONFORMANCE_SURVEY=1) mismatches are only
 * recorded, never thrown: how the list of current differences is produced.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { gapKey, RUNTIME_KNOWN_GAPS, type KnownGap } from './conformance-known-gaps.js';
import {
  deref,
  loadReference,
  loadRestDocument,
  matchTemplate,
  operations,
  opKey,
  pathShape,
  referenceComponents,
  toJsonSchema,
  type OpenApi,
} from './reference-document.js';

// ajv-formats is CommonJS with `exports.default`; under ESM interop the default import may be the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

export interface Mismatch {
  /** JSON pointer into the body with array indexes as `*`, or `status` / `content-type`. */
  at: string;
  message: string;
  /**
   * A null where the reference declares a non-nullable scalar (`long`, `double`, `bool`, `string`
   * in a typed client): no declared deviation excuses it, a generated C#/Java client cannot read it.
   */
  nullForNonNullable?: true;
}

export interface Verdict {
  /** `METHOD /reference/template`. */
  op: string;
  status: number;
  mismatches: Mismatch[];
}

/** What one record line in $REST_CONFORMANCE_DIR holds. */
export interface ConformanceRecord {
  op: string;
  status: number;
  /** Allow-listed mismatches this response showed (`gapKey` form). */
  gaps: string[];
  /** Mismatches not allow-listed (the call threw). */
  failures: string[];
}

const JSON_TYPE = /^application\/(.+\+)?json\b/i;

const describeSchema = (s: any): string => {
  if (!s || typeof s !== 'object') return String(s);
  if (typeof s.$ref === 'string') return s.$ref.split('/').pop()!;
  if (Array.isArray(s.anyOf)) return s.anyOf.map(describeSchema).join('|');
  const parts: string[] = [];
  if (s.type !== undefined) parts.push(Array.isArray(s.type) ? s.type.join('|') : s.type);
  if (s.format) parts.push(`(${s.format})`);
  if (Array.isArray(s.enum)) parts.push(`one of ${s.enum.map((v: unknown) => JSON.stringify(v)).join(', ')}`);
  return parts.join(' ') || 'any value';
};

const actualOf = (v: unknown): string => {
  if (v === undefined) return 'no such property';
  const type = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
  const shown = JSON.stringify(v);
  return type === 'object' || type === 'array' || shown.length > 60 ? type : `${type} ${shown}`;
};

const pointerAt = (body: unknown, pointer: string): unknown =>
  pointer
    .split('/')
    .slice(1)
    .reduce((at: any, key) => (at == null ? undefined : at[key.replace(/~1/g, '/').replace(/~0/g, '~')]), body);

/** `/0/devices/3/tags` -> `/*\/devices/*\/tags`: one allow-list entry covers every element. */
export const normalizePointer = (pointer: string): string => pointer.replace(/\/\d+(?=\/|$)/g, '/*');

const DEVIATION = 'x-reference-deviation';

/**
 * The differences schema/openapi/rest.yaml declares with `x-reference-deviation` (where our spec
 * wins), so the runtime check accepts what the static one (rest-compat.ts) accepts: a mismatch is
 * declared when our operation, our response for that status, or a schema on the way from the
 * response body to the mismatch's pointer carries the keyword (`status`: our response for the
 * status answered carries it).
 */
export class DeclaredDeviations {
  private readonly ops = new Map<string, any>();

  constructor(private readonly ours: OpenApi = loadRestDocument()) {
    for (const o of operations(ours)) this.ops.set(`${o.method.toUpperCase()} ${pathShape(o.template)}`, o.op);
  }

  /** `node`, what it refers to, and its anyOf/oneOf/allOf branches (recursively). */
  private variants(node: any, out: any[] = []): any[] {
    if (!node || typeof node !== 'object' || out.includes(node)) return out;
    out.push(node);
    const target = deref(this.ours, node);
    if (target !== node) this.variants(target, out);
    for (const branch of [...(target.anyOf ?? []), ...(target.oneOf ?? []), ...(target.allOf ?? [])]) this.variants(branch, out);
    return out;
  }

  private declares(node: any): boolean {
    return this.variants(node).some((n) => typeof n[DEVIATION] === 'string');
  }

  covers(method: string, referenceTemplate: string, status: number, at: string): boolean {
    const op = this.ops.get(`${method.toUpperCase()} ${pathShape(referenceTemplate)}`);
    if (!op) return false;
    if (typeof op[DEVIATION] === 'string') return true;
    const res = deref(this.ours, op.responses?.[String(status)]);
    if (!res) return false;
    if (typeof res[DEVIATION] === 'string') return true;
    if (at === 'status' || at === 'content-type') return false;
    const media = res.content?.['application/json'] ?? Object.entries<any>(res.content ?? {}).find(([t]) => JSON_TYPE.test(t))?.[1];
    let nodes: any[] = media?.schema ? [media.schema] : [];
    for (const segment of at
      .split('/')
      .slice(1)
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'))) {
      if (nodes.some((n) => this.declares(n))) return true;
      const variants = nodes.flatMap((n) => this.variants(n));
      nodes = variants.map((v) => (segment === '*' ? v.items : v.properties?.[segment])).filter(Boolean);
      if (!nodes.length) return false;
    }
    return nodes.some((n) => this.declares(n));
  }
}

export class ReferenceConformance {
  private readonly templates: string[];
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly deviations: DeclaredDeviations;

  constructor(
    private readonly reference: OpenApi = loadReference(),
    ours: OpenApi = loadRestDocument(),
  ) {
    this.deviations = new DeclaredDeviations(ours);
    this.templates = Object.keys(reference.paths);
    this.ajv = new Ajv({ strict: false, allErrors: true, verbose: true });
    addFormats(this.ajv);
    this.ajv.addSchema(referenceComponents(reference, 'response'));
  }

  /** The reference operation a request falls under (`METHOD /template`), or undefined. */
  operationOf(method: string, path: string): { op: string; template: string; spec: any } | undefined {
    const template = matchTemplate(this.templates, path);
    const spec = template ? this.reference.paths[template]![method.toLowerCase()] : undefined;
    return template && spec ? { op: opKey(method, template), template, spec } : undefined;
  }

  /**
   * Checks one response. Success statuses must be ones the reference declares, with a body its
   * schema accepts. Error statuses are checked only where the reference gives them a body (it
   * never does today): their shape is our spec's `Error`, the reference leaves it open.
   */
  check(method: string, path: string, status: number, contentType: string | null, bodyText: string | undefined): Verdict | undefined {
    const found = this.operationOf(method, path);
    if (!found) return undefined;
    const verdict = this.compare(found, status, contentType, bodyText);
    // What rest.yaml declares as a deviation (our spec wins) is not a mismatch, except a null
    // where the reference's scalar is non-nullable: that breaks typed clients whatever our spec says.
    verdict.mismatches = verdict.mismatches.filter((m) => m.nullForNonNullable || !this.deviations.covers(method, found.template, status, m.at));
    return verdict;
  }

  private compare(found: { op: string; spec: any }, status: number, contentType: string | null, bodyText: string | undefined): Verdict {
    const { op, spec } = found;
    const verdict: Verdict = { op, status, mismatches: [] };
    const declared = spec.responses?.[String(status)];
    if (!declared) {
      if (status >= 200 && status < 300) {
        const expected = Object.keys(spec.responses ?? {}).filter((s) => s.startsWith('2'));
        verdict.mismatches.push({ at: 'status', message: `${op} answered ${status}; the reference answers ${expected.join(' or ')}` });
      }
      return verdict;
    }
    const media = declared.content?.['application/json'] ?? Object.entries<any>(declared.content ?? {}).find(([t]) => JSON_TYPE.test(t))?.[1];
    if (!media?.schema) return verdict;
    if (!contentType || !JSON_TYPE.test(contentType)) {
      verdict.mismatches.push({
        at: 'content-type',
        message: `${op} answered ${status} with content-type ${contentType ?? '(none)'}; the reference answers application/json`,
      });
      return verdict;
    }
    let body: unknown;
    try {
      body = JSON.parse(bodyText ?? '');
    } catch {
      verdict.mismatches.push({ at: 'content-type', message: `${op} answered ${status} with a body that is not JSON` });
      return verdict;
    }
    const validate = this.validatorFor(`${op} ${status}`, media.schema);
    if (!validate(body)) verdict.mismatches.push(...this.explain(op, status, body, validate.errors ?? []));
    return verdict;
  }

  /** Whether check() will read the body of this response (so the caller clones it only then). */
  wantsBody(method: string, path: string, status: number): boolean {
    const spec = this.operationOf(method, path)?.spec;
    return Boolean(spec?.responses?.[String(status)]?.content);
  }

  private validatorFor(key: string, schema: unknown): ValidateFunction {
    let v = this.validators.get(key);
    if (!v) {
      v = this.ajv.compile(toJsonSchema(schema, 'response'));
      this.validators.set(key, v);
    }
    return v;
  }

  private explain(op: string, status: number, body: unknown, errors: ErrorObject[]): Mismatch[] {
    const out = new Map<string, Mismatch>();
    for (const e of errors) {
      // A nullable value is `anyOf: [schema, null]`: the branch errors say what is wrong, the
      // `anyOf` and "must be null" errors only repeat it.
      if (e.keyword === 'anyOf' || (e.keyword === 'type' && e.schema === 'null')) continue;
      let pointer = e.instancePath;
      let expected: string;
      if (e.keyword === 'required') {
        const missing = (e.params as { missingProperty: string }).missingProperty;
        pointer = `${pointer}/${missing.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        expected = describeSchema((e.parentSchema as any)?.properties?.[missing]);
      } else if (e.keyword === 'enum') {
        expected = `one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
      } else if (e.keyword === 'format') {
        expected = `a ${(e.params as { format: string }).format} string`;
      } else {
        expected = e.keyword === 'type' ? describeSchema(e.parentSchema) : `${e.keyword} ${JSON.stringify(e.params)}`;
      }
      const at = normalizePointer(pointer);
      if (out.has(at)) continue;
      const actual = pointerAt(body, pointer);
      const declared = (e.parentSchema as { type?: unknown } | undefined)?.type;
      const scalar = e.keyword === 'type' && typeof declared === 'string' && ['string', 'number', 'integer', 'boolean'].includes(declared);
      out.set(at, {
        at,
        message: `${op} answered ${status}: at ${pointer || '(root)'} the reference expects ${expected}, got ${actualOf(actual)}`,
        ...(scalar && actual === null ? { nullForNonNullable: true as const } : {}),
      });
    }
    return [...out.values()];
  }
}

export class ConformanceError extends Error {
  override name = 'ReferenceConformanceError';
}

const origins = new Set<string>();
let shared: ReferenceConformance | undefined;
const knownGaps = new Set(RUNTIME_KNOWN_GAPS.map(gapKey));

/** Marks `baseUrl` as serving our current REST interface: its responses get checked from now on. */
export function registerRestOrigin(baseUrl: string): void {
  origins.add(new URL(baseUrl).origin);
}

const INSTALLED = Symbol.for('pylon.referenceConformanceFetch');

/** Wraps globalThis.fetch once per module context (a jest test file). */
export function installConformanceFetch(options: { recordDir?: string; gaps?: ReadonlySet<string>; survey?: boolean } = {}): void {
  const original = globalThis.fetch as typeof fetch & { [INSTALLED]?: true };
  if (original[INSTALLED]) return;
  const gaps = options.gaps ?? knownGaps;
  const wrapped = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await original(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!origins.has(url.origin)) return res;
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    shared ??= new ReferenceConformance();
    if (!shared.operationOf(method, url.pathname)) return res;
    const body = shared.wantsBody(method, url.pathname, res.status) ? await res.clone().text() : undefined;
    const verdict = shared.check(method, url.pathname, res.status, res.headers.get('content-type'), body)!;
    const failures = verdict.mismatches.filter((m) => !gaps.has(gapKey({ op: verdict.op, at: m.at })));
    if (options.recordDir) {
      const record: ConformanceRecord = {
        op: verdict.op,
        status: verdict.status,
        gaps: verdict.mismatches.filter((m) => !failures.includes(m)).map((m) => gapKey({ op: verdict.op, at: m.at })),
        failures: failures.map((m) => gapKey({ op: verdict.op, at: m.at })),
      };
      mkdirSync(options.recordDir, { recursive: true });
      appendFileSync(join(options.recordDir, `${process.pid}.jsonl`), `${JSON.stringify(record)}\n`);
    }
    if (failures.length && !options.survey) {
      throw new ConformanceError(
        `the response of ${method} ${url.pathname} does not match the reference API (schema/reference/peer-rest-openapi.json):\n` +
          failures.map((m) => `  - ${m.message}  [allow-list key: op '${verdict.op}', at '${m.at}']`).join('\n'),
      );
    }
    return res;
  };
  Object.defineProperty(wrapped, INSTALLED, { value: true });
  globalThis.fetch = wrapped as typeof fetch;
}

export type { KnownGap };
