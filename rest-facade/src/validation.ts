/**
 * Turns the OpenAPI validator's (Ajv) findings into error details that name the REST parameter
 * or body property at fault: `take=-1` -> { field: 'take', in: 'query', message: 'take must be >= 0' }.
 */
import type { ValidationResult } from 'openapi-backend';
import type { ErrorDetail } from './errors.js';

type AjvError = NonNullable<ValidationResult['errors']>[number];

const LOCATIONS: Record<string, ErrorDetail['in']> = { query: 'query', path: 'path', header: 'header', requestBody: 'body' };

const unescapePointer = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

/** `['rows', '0', 'data']` -> `rows[0].data`. */
function dotted(segments: string[]): string {
  return segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
}

export function detailOf(e: AjvError): ErrorDetail {
  const segments = e.instancePath.split('/').slice(1).map(unescapePointer);
  const where = LOCATIONS[segments[0] ?? ''];
  const params = e.params as Record<string, unknown>;
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

/** One detail per distinct problem, in the validator's order. */
export function detailsOf(errors: readonly AjvError[]): ErrorDetail[] {
  const seen = new Set<string>();
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const d = detailOf(e);
    const key = `${d.in}|${d.field}|${d.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(d);
    }
  }
  return out;
}
