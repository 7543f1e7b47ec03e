/** Reading mutation payloads ({ success, error, errorCode, errorField, ... }) in REST terms. */
import { AppError, codeFromGraphQL } from '@pylon/kit';
import { restFieldName } from '../errors.js';
import { recordAt, type GqlRecord } from './shape.js';

/**
 * The payload at `field` when it succeeded; otherwise the REST error it stands for: its stable
 * code (400 when none), naming the body property at fault (`groupId` -> `group_id`,
 * `operations[1].path` -> `body[1].path`).
 */
export function payloadAt(data: GqlRecord, field: string, fieldNames: Readonly<Record<string, string>> = {}): GqlRecord {
  const payload = recordAt(data, field);
  if (payload.success === true) return payload;
  const code = typeof payload.errorCode === 'string' ? codeFromGraphQL(payload.errorCode) : 'BAD_USER_INPUT';
  const raw = typeof payload.errorField === 'string' ? payload.errorField.replace(/^operations(?=\[)/, 'body').replace(/^commands(?=\[)/, 'body') : undefined;
  const restField = raw ? restFieldName(raw, fieldNames) : undefined;
  throw new AppError(code === 'INTERNAL' ? 'BAD_USER_INPUT' : code, typeof payload.error === 'string' ? payload.error : 'the request is invalid', restField ? { field: restField } : {});
}

/** snake_case REST property -> camelCase GraphQL field (`group_id` -> `groupId`); other spellings (`__proto__`) stay as they are. */
export const camelSegment = (s: string) => (/^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/.test(s) ? s.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()) : s);

/** JSON Patch operations with snake_case paths -> the same with the GraphQL field names (values untouched; the service checks every path). */
export function camelPatch(body: unknown): unknown {
  if (!Array.isArray(body)) return body;
  const pointer = (p: unknown) => (typeof p === 'string' ? p.split('/').map((seg) => camelSegment(seg)).join('/') : p);
  return body.map((op: unknown) => {
    if (!op || typeof op !== 'object') return op;
    const o = op as Record<string, unknown>;
    return { ...o, path: pointer(o.path), ...('from' in o ? { from: pointer(o.from) } : {}) };
  });
}
