/**
 * Static compatibility of schema/openapi/rest.yaml with the reference API, for every path + method
 * both documents have (path parameter names aside): a client generated from the reference must be
 * able to call ours unchanged and read what it gets back.
 * - parameters: every reference parameter is accepted under the same name and `in`, with a type
 *   that accepts the reference's; we require none the reference does not send;
 * - request body: every property the reference sends is declared, accepting its type, null where
 *   the reference allows null, and its enum values;
 * - responses: every success status of the reference is ours too, and our body provides every
 *   reference property with the same type and no enum value the reference lacks.
 * A difference our spec requires is declared where it is, with `x-reference-deviation: <reason>`
 * on the operation, a parameter, a response, or a schema (inside an `anyOf` wrapper for a `$ref`
 * property, because a `$ref` has no siblings in rest.yaml); the subtree is then not compared.
 */
import { gapKey, type KnownGap } from './conformance-known-gaps.js';
import { deref, operations, opKey, pathShape, type OpenApi } from './reference-document.js';

export const DEVIATION = 'x-reference-deviation';

export interface CompatProblem {
  op: string;
  /** `parameter query Take`, `request application/json /tags`, `response 200 /*\/tags`, ... */
  at: string;
  message: string;
}

interface Shape {
  /** JSON types without null; empty = any value. */
  types: Set<string>;
  nullable: boolean;
  enum?: unknown[];
  properties: Record<string, any>;
  closed: boolean;
  items?: any;
  deviation?: string;
}

const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'];

/** Our schema and the reference's flattened to what a client sees: types, null, enum, members. */
function shapeOf(doc: OpenApi, raw: any): Shape {
  const shape: Shape = { types: new Set(), nullable: false, properties: {}, closed: false };
  const visit = (node: any): void => {
    if (node && typeof node === 'object' && typeof node[DEVIATION] === 'string') shape.deviation ??= node[DEVIATION];
    const s = deref(doc, node);
    if (!s || typeof s !== 'object') return;
    if (typeof s[DEVIATION] === 'string') shape.deviation ??= s[DEVIATION];
    for (const t of Array.isArray(s.type) ? s.type : s.type !== undefined ? [s.type] : []) {
      if (t === 'null') shape.nullable = true;
      else shape.types.add(t);
    }
    if (s.nullable === true) shape.nullable = true;
    if (Array.isArray(s.enum)) shape.enum = [...(shape.enum ?? []), ...s.enum.filter((v: unknown) => v !== null)];
    if (Array.isArray(s.enum) && s.enum.includes(null)) shape.nullable = true;
    if (s.properties) {
      Object.assign(shape.properties, s.properties);
      if (!s.type) shape.types.add('object');
    }
    if (s.additionalProperties === false) shape.closed = true;
    if (s.items) shape.items = s.items;
    for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) visit(branch);
  };
  visit(raw);
  for (const t of shape.types) if (!JSON_TYPES.includes(t)) shape.types.delete(t);
  return shape;
}

/** Whether a value of JSON type `t` is accepted by a schema of `types` (empty = any). */
const accepts = (types: Set<string>, t: string): boolean => types.size === 0 || types.has(t) || (t === 'integer' && types.has('number'));
const show = (s: Shape): string =>
  (s.types.size ? [...s.types].join('|') : 'any') + (s.nullable ? '|null' : '') + (s.enum ? ` enum [${s.enum.join(', ')}]` : '');
/** `response 200` + `tags` -> `response 200 /tags`; deeper: `response 200 /tags/x`. */
const child = (at: string, key: string): string => `${at}${at.includes(' /') ? '' : ' '}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;

class Comparison {
  readonly problems: CompatProblem[] = [];
  private readonly seen = new Set<string>();
  private readonly ids = new WeakMap<object, number>();
  private next = 0;

  constructor(
    private readonly ours: OpenApi,
    private readonly reference: OpenApi,
  ) {}

  problem(op: string, at: string, message: string): void {
    this.problems.push({ op, at, message });
  }

  private id(o: unknown): number {
    if (!o || typeof o !== 'object') return -1;
    let id = this.ids.get(o);
    if (id === undefined) this.ids.set(o, (id = this.next++));
    return id;
  }

  /** Recursive schemas (Group.children) end: each pair of schemas is compared once per operation and side. */
  private once(op: string, ref: any, ours: any, side: 'request' | 'response'): boolean {
    const key = `${op}|${side}|${this.id(deref(this.reference, ref))}|${this.id(deref(this.ours, ours))}`;
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }

  /** What we answer must be readable as the reference's `ref`. */
  response(op: string, at: string, ref: any, ours: any): void {
    if (!this.once(op, ref, ours, 'response')) return;
    const r = shapeOf(this.reference, ref);
    const o = shapeOf(this.ours, ours);
    // A null where the reference's scalar is non-nullable breaks a typed client (a C# `long` cannot
    // hold it): no declared deviation excuses it.
    const scalar = r.types.size > 0 && [...r.types].every((t) => ['string', 'number', 'integer', 'boolean'].includes(t));
    if (scalar && !r.nullable && o.nullable) {
      return this.problem(op, at, `ours may answer null where the reference's ${show(r)} is non-nullable (typed clients cannot read it)`);
    }
    if (o.deviation) return;
    const wrongTypes = [...o.types].filter((t) => !accepts(r.types, t));
    if (wrongTypes.length || (r.types.size && !o.types.size)) return this.problem(op, at, `the reference answers ${show(r)}, ours ${show(o)}`);
    if (r.enum) {
      const extra = o.enum ? o.enum.filter((v) => !r.enum!.includes(v)) : ['(any value)'];
      if (extra.length) this.problem(op, at, `enum values the reference does not have: ${extra.join(', ')} (reference: ${r.enum.join(', ')})`);
    }
    for (const [name, prop] of Object.entries<any>(r.properties)) {
      if (deref(this.reference, prop)?.writeOnly) continue;
      if (!(name in o.properties)) this.problem(op, child(at, name), `missing: the reference answers ${name} (${show(shapeOf(this.reference, prop))})`);
      else this.response(op, child(at, name), prop, o.properties[name]);
    }
    if (r.items && o.items) this.response(op, child(at, '*'), r.items, o.items);
  }

  /** What a reference client sends must be accepted by ours. */
  request(op: string, at: string, ref: any, ours: any): void {
    if (!this.once(op, ref, ours, 'request')) return;
    const r = shapeOf(this.reference, ref);
    const o = shapeOf(this.ours, ours);
    if (o.deviation) return;
    const refused = [...r.types].filter((t) => !accepts(o.types, t));
    if (refused.length) return this.problem(op, at, `the reference sends ${show(r)}, ours accepts ${show(o)}`);
    if (r.nullable && !o.nullable && o.types.size) this.problem(op, at, `the reference may send null, ours refuses it (${show(o)})`);
    if (r.enum && o.enum) {
      const missing = r.enum.filter((v) => !o.enum!.includes(v));
      if (missing.length) this.problem(op, at, `enum values ours refuses: ${missing.join(', ')}`);
    }
    for (const [name, prop] of Object.entries<any>(r.properties)) {
      if (deref(this.reference, prop)?.readOnly) continue;
      if (!(name in o.properties)) {
        if (o.types.has('object') || Object.keys(o.properties).length)
          this.problem(
            op,
            child(at, name),
            `the reference sends ${name} (${show(shapeOf(this.reference, prop))}); ours ${o.closed ? 'refuses it' : 'does not declare it'}`,
          );
      } else this.request(op, child(at, name), prop, o.properties[name]);
    }
    if (r.items && o.items) this.request(op, child(at, '*'), r.items, o.items);
  }
}

const jsonMedia = (content: Record<string, any> | undefined): [string, any] | undefined => {
  if (!content) return undefined;
  const entries = Object.entries(content);
  return entries.find(([t]) => t === 'application/json') ?? entries.find(([t]) => /json/i.test(t));
};

/** Every difference of `ours` from `reference` over the operations both have. */
export function compareWithReference(ours: OpenApi, reference: OpenApi): CompatProblem[] {
  const c = new Comparison(ours, reference);
  const refOps = new Map(operations(reference).map((o) => [`${o.method} ${pathShape(o.template)}`, o]));
  for (const mine of operations(ours)) {
    const theirs = refOps.get(`${mine.method} ${pathShape(mine.template)}`);
    if (!theirs) continue;
    const op = opKey(theirs.method, theirs.template);
    if (typeof mine.op[DEVIATION] === 'string') continue;

    // Parameters: path ones by position (their names are not visible to a client), others by name.
    const params = (doc: OpenApi, o: any, template: string): any[] =>
      [...(doc.paths[template]!.parameters ?? []), ...(o.parameters ?? [])].map((p) => deref(doc, p));
    const ourParams = params(ours, mine.op, mine.template);
    const refParams = params(reference, theirs.op, theirs.template);
    const pathNames = (t: string) => [...t.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const ourPath = pathNames(mine.template);
    pathNames(theirs.template).forEach((name, i) => {
      const r = refParams.find((p) => p.in === 'path' && p.name === name);
      const o = ourParams.find((p) => p.in === 'path' && p.name === ourPath[i]);
      if (r && o && !o[DEVIATION]) c.request(op, `parameter path ${name}`, r.schema, o.schema);
    });
    for (const r of refParams.filter((p) => p.in !== 'path')) {
      const o = ourParams.find((p) => p.in === r.in && p.name === r.name);
      if (!o) {
        const lookalike = ourParams.find((p) => p.in === r.in && p.name.toLowerCase().replace(/_/g, '') === r.name.toLowerCase().replace(/_/g, ''));
        c.problem(
          op,
          `parameter ${r.in} ${r.name}`,
          `the reference sends ${r.in} parameter ${r.name}; ours does not accept it${lookalike ? ` (ours is named ${lookalike.name})` : ''}`,
        );
      } else if (!o[DEVIATION]) c.request(op, `parameter ${r.in} ${r.name}`, r.schema, o.schema);
    }
    for (const o of ourParams.filter((p) => p.in !== 'path' && p.required && !p[DEVIATION])) {
      if (!refParams.some((p) => p.in === o.in && p.name === o.name))
        c.problem(op, `parameter ${o.in} ${o.name}`, `ours requires ${o.in} parameter ${o.name}, which the reference never sends`);
    }

    // Request body.
    const refBody = deref(reference, theirs.op.requestBody);
    const ourBody = deref(ours, mine.op.requestBody);
    if (refBody?.content && !ourBody?.[DEVIATION]) {
      for (const [type, media] of Object.entries<any>(refBody.content)) {
        const at = `request ${type}`;
        const o = ourBody?.content?.[type] ?? (/json/i.test(type) ? jsonMedia(ourBody?.content)?.[1] : undefined);
        if (!o) c.problem(op, at, `the reference sends a ${type} body; ours does not accept one`);
        else if (media.schema) c.request(op, at, media.schema, o.schema);
      }
    } else if (ourBody?.required && !refBody && !ourBody[DEVIATION]) c.problem(op, 'request', 'ours requires a body; the reference sends none');

    // Responses: every reference success status, with its body.
    for (const [status, refRes] of Object.entries<any>(theirs.op.responses ?? {})) {
      if (!status.startsWith('2')) continue;
      const at = `response ${status}`;
      const ourRes = deref(ours, mine.op.responses?.[status]);
      if (!ourRes) {
        const mineOk = Object.keys(mine.op.responses ?? {}).filter((s) => s.startsWith('2'));
        // An operation that never succeeds here (POST /report/adhawk: 501) declares why on the answer it gives instead.
        const declaredInstead = !mineOk.length && Object.values<any>(mine.op.responses ?? {}).some((r) => typeof deref(ours, r)?.[DEVIATION] === 'string');
        if (declaredInstead) continue;
        if (!mineOk.some((s) => theirs.op.responses[s]))
          c.problem(op, at, `the reference answers ${status}; ours answers ${mineOk.join(' or ') || 'no success'}`);
        continue;
      }
      if (ourRes[DEVIATION]) continue;
      const refMedia = jsonMedia(deref(reference, refRes).content);
      if (!refMedia?.[1]?.schema) continue;
      const ourMedia = jsonMedia(ourRes.content);
      if (!ourMedia) c.problem(op, at, `the reference answers ${refMedia[0]}; ours answers ${Object.keys(ourRes.content ?? {}).join(', ') || 'no body'}`);
      else c.response(op, at, refMedia[1].schema, ourMedia[1].schema);
    }
  }
  return c.problems;
}

/** compareWithReference minus the allow-list; entries it no longer finds are `stale`. */
export function checkRestCompat(ours: OpenApi, reference: OpenApi, gaps: readonly KnownGap[]): { problems: CompatProblem[]; stale: KnownGap[] } {
  const all = compareWithReference(ours, reference);
  const found = new Set(all.map(gapKey));
  const allowed = new Set(gaps.map(gapKey));
  return { problems: all.filter((p) => !allowed.has(gapKey(p))), stale: gaps.filter((g) => !found.has(gapKey(g))) };
}
