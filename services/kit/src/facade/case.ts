/** Key conversion between GraphQL (camelCase) and REST bodies (snake_case). */

/** `ipAddress` -> `ip_address`, `deviceTypeId` -> `device_type_id`. Digits stay attached (`address1`). */
export function snakeCase(name: string): string {
  let snake = memo.get(name);
  if (snake === undefined) {
    snake = name
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
      .toLowerCase();
    // Keys come from the schema's field names: a small, fixed set on the hot path of every response.
    if (memo.size < 10_000) memo.set(name, snake);
  }
  return snake;
}
const memo = new Map<string, string>();

/**
 * Deep copy with every object key in snake_case; `renames` (GraphQL name -> REST name) wins over
 * the generic rule at any depth, for the names the rule gets wrong (`address1` -> `address_1`).
 * `__typename` is dropped.
 * This runs on every field of every REST answer (50 devices x 30 fields for a device list), so it
 * avoids per-key allocations: one own-keys walk and cached key names.
 */
export function snakeKeys(value: unknown, renames: Readonly<Record<string, string>> = NO_RENAMES): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const list = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) list[i] = snakeKeys(value[i], renames);
    return list;
  }
  const out: Record<string, unknown> = {};
  const hasRenames = renames !== NO_RENAMES;
  let n = 0;
  for (const k of Object.keys(value)) {
    if (k === '__typename') continue;
    out[hasRenames && Object.hasOwn(renames, k) ? renames[k]! : snakeCase(k)] = snakeKeys((value as Record<string, unknown>)[k], renames);
    n++;
  }
  return ordinary(out, n);
}
const NO_RENAMES: Readonly<Record<string, string>> = Object.freeze({});

/**
 * GraphQL names the generic rule gets wrong, shared by every REST and legacy record
 * (`address1` -> `address_1` in the account and organization records).
 */
export const RECORD_RENAMES: Readonly<Record<string, string>> = { address1: 'address_1', address2: 'address_2' };

/** snake_case REST property -> camelCase GraphQL field (`group_id` -> `groupId`); other spellings (`__proto__`, `timeZone`) stay as they are. */
export const camelSegment = (s: string) => (/^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/.test(s) ? s.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()) : s);

/**
 * JSON Patch operations with REST paths -> the same with GraphQL field names (values untouched;
 * the service checks every path). `renames` maps whole REST segments first (`timeZone` -> `timezone`).
 */
export function camelPatch(body: unknown, renames: Readonly<Record<string, string>> = {}): unknown {
  if (!Array.isArray(body)) return body;
  const pointer = (p: unknown) =>
    typeof p === 'string'
      ? p
          .split('/')
          .map((seg) => (Object.hasOwn(renames, seg) ? renames[seg]! : camelSegment(seg)))
          .join('/')
      : p;
  return body.map((op: unknown) => {
    if (!op || typeof op !== 'object') return op;
    const o = op as Record<string, unknown>;
    return { ...o, path: pointer(o.path), ...('from' in o ? { from: pointer(o.from) } : {}) };
  });
}

/**
 * A record with exactly `fields`, in that order (the wire order of JSON keys and XML elements),
 * converted by `snakeKeys`; a field the selection lacks or holds null is null.
 */
export function snakeRecord<K extends string>(
  value: Record<string, unknown>,
  fields: readonly K[],
  renames: Readonly<Record<string, string>> = RECORD_RENAMES,
): Record<K, unknown> {
  const snake = snakeKeys(value, renames) as Record<string, unknown>;
  const out = {} as Record<K, unknown>;
  for (const f of fields) out[f] = snake[f] ?? null;
  return ordinary(out, fields.length);
}

/**
 * An object that got `keys` properties by computed name: past a dozen, V8 keeps it as a dictionary,
 * which costs about twice as much to serialize (JSON of a REST or legacy list); a spread copy of it
 * is an ordinary object again.
 */
const ordinary = <T extends object>(o: T, keys: number): T => (keys > 12 ? { ...o } : o);
