/**
 * Legacy device and group bodies, JSON or XML, into GraphQL inputs. XML leaves arrive as strings,
 * so numbers are parsed here; tags may be a list, `<tags><tag>a</tag><tag>b</tag></tags>`, or a
 * comma-separated string; an empty element means null. Unknown properties are refused by name
 * (the service owns id, account, version and the rest).
 */
import { AppError } from '@pylon/kit';
import type { CreateDeviceInput, DeviceGroupInput, UpdateDeviceInput } from '@pylon/kit/generated/rest-operations.generated';

/** The request body before its properties are checked (JSON object or XML root element's content). */
type Body = { readonly [property: string]: unknown };

const bad = (field: string, message: string) => new AppError('BAD_USER_INPUT', message, { field });

function objectBody(body: unknown, what: string): Body {
  if (body === undefined || body === null || body === '') throw new AppError('BAD_USER_INPUT', `a ${what} body (JSON or XML) is required`);
  if (typeof body !== 'object' || Array.isArray(body)) throw new AppError('BAD_USER_INPUT', `the body must be one ${what} object`);
  return body as Body;
}

const text = (v: unknown, field: string): string | null => {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v !== 'string' && typeof v !== 'number') throw bad(field, `${field} must be text`);
  return String(v);
};

const num = (v: unknown, field: string): number | null => {
  if (v === null || v === undefined || v === '') return null;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) throw bad(field, `${field} must be a number`);
  return n;
};

function tags(v: unknown): string[] {
  if (v === null || v === undefined || v === '') return [];
  if (typeof v === 'string')
    return v
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  if (Array.isArray(v)) return v.map((t, i) => text(t, `tags[${i}]`) ?? '').filter(Boolean);
  if (typeof v === 'object' && Object.keys(v).every((k) => k === 'tag')) return tags((v as { tag?: unknown }).tag);
  throw bad('tags', 'tags must be a list of strings');
}

type Kinds = { readonly [key: string]: 'text' | 'number' };
/** A nested input object of these keys: a number where the kind says so, text otherwise. */
type Nested<K extends Kinds> = { [P in keyof K]?: (K[P] extends 'number' ? number : string) | null };

function nested<K extends Kinds>(v: unknown, field: string, keys: K): Nested<K> | null {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw bad(field, `${field} must be an object`);
  const out: { [key: string]: string | number | null } = {};
  for (const [k, val] of Object.entries(v as Body)) {
    const kind = keys[k];
    if (!kind) throw bad(`${field}.${k}`, `unknown field '${field}.${k}'`);
    out[k] = kind === 'number' ? num(val, `${field}.${k}`) : text(val, `${field}.${k}`);
  }
  return out as Nested<K>;
}

const LOCATION = { city: 'text', state: 'text', country: 'text', latitude: 'number', longitude: 'number' } as const;
const DEVICE_TYPE = { id: 'text', name: 'text', manufacturer: 'text' } as const;

/** A device body -> CreateDeviceInput / UpdateDeviceInput (only the fields given, for updates). */
export function deviceInput(body: unknown, opts: { create: true }): CreateDeviceInput;
export function deviceInput(body: unknown, opts: { create: false }): UpdateDeviceInput;
export function deviceInput(body: unknown, opts: { create: boolean }): CreateDeviceInput | UpdateDeviceInput {
  const b = objectBody(body, 'device');
  const input: Partial<CreateDeviceInput> = {};
  for (const [k, v] of Object.entries(b)) {
    switch (k) {
      case 'name':
        input.name = text(v, 'name') ?? '';
        break;
      case 'tags':
        input.tags = tags(v);
        break;
      case 'group_id':
        input.groupId = text(v, 'group_id');
        break;
      case 'org_id':
        input.orgId = text(v, 'org_id');
        break;
      case 'timezone':
        input.timezone = text(v, k);
        break;
      case 'notes':
        input.notes = text(v, k);
        break;
      case 'location':
        input.location = nested(v, 'location', LOCATION);
        break;
      case 'device_type':
        input.deviceType = nested(v, 'device_type', DEVICE_TYPE);
        break;
      case 'registration_key':
        if (!opts.create) throw bad(k, 'registration_key cannot be changed');
        input.registrationKey = text(v, k);
        break;
      default:
        throw bad(k, `unknown or read-only field '${k.slice(0, 50)}'`);
    }
  }
  if (opts.create && typeof input.name !== 'string') throw bad('name', 'name is required');
  return input as CreateDeviceInput | UpdateDeviceInput;
}

/** A group body -> DeviceGroupInput. */
export function groupInput(body: unknown): DeviceGroupInput {
  const b = objectBody(body, 'group');
  for (const k of Object.keys(b)) if (k !== 'name' && k !== 'parent_id') throw bad(k, `unknown field '${k.slice(0, 50)}'`);
  const name = text(b.name, 'name');
  if (!name) throw bad('name', 'name is required');
  return { name, ...('parent_id' in b ? { parentId: text(b.parent_id, 'parent_id') } : {}) };
}

/** Mutation payloads are read by the mapper the REST facade uses too. */
export { payloadAt as payloadOf } from '@pylon/kit';
