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
 */
export function snakeKeys(value: unknown, renames: Readonly<Record<string, string>> = {}): unknown {
  if (Array.isArray(value)) return value.map((v) => snakeKeys(v, renames));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k in value) {
    if (k === '__typename' || !Object.hasOwn(value, k)) continue;
    out[Object.hasOwn(renames, k) ? renames[k]! : snakeCase(k)] = snakeKeys((value as Record<string, unknown>)[k], renames);
  }
  return out;
}
