/**
 * Turns the OpenAPI validator's (Ajv) findings into error details that name the REST parameter
 * or body property at fault: `take=-1` -> { field: 'take', in: 'query', message: 'take must be >= 0' }.
 */
import type { ValidationResult } from 'openapi-backend';
import type { ErrorDetail } from './errors.js';

type AjvError = NonNullable<ValidationResult['errors']>[number];

/** The members of Ajv's `params` read here (which a keyword gives depends on the keyword). */
interface AjvParams {
  additionalProperty?: unknown;
  missingProperty?: unknown;
  allowedValues?: unknown;
}

const LOCATIONS: Record<string, ErrorDetail['in']> = { query: 'query', path: 'path', header: 'header', requestBody: 'body' };

const unescapePointer = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

/** `['rows', '0', 'data']` -> `rows[0].data`. */
function dotted(segments: string[]): string {
  return segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
}

export function detailOf(e: AjvError): ErrorDetail {
  const segments = e.instancePath.split('/').slice(1).map(unescapePointer);
  const where = LOCATIONS[segments[0] ?? ''];
  const params: AjvParams = e.params;
  if (e.keyword === 'parse') return { in: 'body', message: 'the body is not valid JSON' };

  let rest = segments.slice(1);
  const extra =
    typeof params.additionalProperty === 'string' ? params.additionalProperty : typeof params.missingProperty === 'string' ? params.missingProperty : undefined;
  if (extra !== undefined) rest = [...rest, extra];
  // A parameter is named by itself (`group_id`, not `group_id[0]`); the message still shows the item.
  const shown = dotted(rest);
  const field = where === 'body' ? shown : rest[0];

  let message: string;
  if (e.keyword === 'additionalProperties') {
    message = where === 'body' ? `unknown property '${shown}'` : `unknown ${where ?? ''} parameter '${shown}'`.replace('  ', ' ');
  } else if (e.keyword === 'required') {
    message = `${shown || 'the body'} is required`;
  } else if (e.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    message = `${shown} must be one of: ${params.allowedValues.map(String).join(', ')}`;
  } else if (!shown && where === 'body') {
    message = `the body ${e.message ?? 'is invalid'}`;
  } else {
    message = `${shown} ${e.message ?? 'is invalid'}`;
  }
  return { ...(field ? { field } : {}), ...(where ? { in: where } : {}), message };
}

const depth = (e: AjvError) => (e.instancePath ? e.instancePath.split('/').length : 0);

/**
 * For each failed anyOf/oneOf, only the closest branch's problems: the branch that got deepest into
 * the value (then the one with fewest problems). `devices: ["d1"]` against `array of {id} | null`
 * reports `devices[0] must be object`, not also "devices must be null" and "must match a schema in anyOf".
 */
export function closestBranches(errors: readonly AjvError[]): AjvError[] {
  const dropped = new Set<AjvError>();
  for (const union of errors) {
    if (union.keyword !== 'anyOf' && union.keyword !== 'oneOf') continue;
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, AjvError[]>();
    for (const e of errors) {
      if (!e.schemaPath.startsWith(prefix)) continue;
      const branch = e.schemaPath.slice(prefix.length).split('/')[0]!;
      branches.set(branch, [...(branches.get(branch) ?? []), e]);
    }
    if (branches.size === 0) continue; // oneOf that matched twice: keep its own message
    const score = (es: AjvError[]) => Math.max(...es.map(depth)) * 1000 - es.length;
    const best = [...branches.values()].reduce((a, b) => (score(b) > score(a) ? b : a));
    dropped.add(union);
    for (const es of branches.values()) if (es !== best) for (const e of es) dropped.add(e);
  }
  return errors.filter((e) => !dropped.has(e));
}

/** One detail per distinct problem, in the validator's order (of a union, the closest branch's only). */
export function detailsOf(errors: readonly AjvError[]): ErrorDetail[] {
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  for (const e of closestBranches(errors)) {
    const d = detailOf(e);
    const key = `${d.in}|${d.field}|${d.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(d);
    }
  }
  return out;
}
