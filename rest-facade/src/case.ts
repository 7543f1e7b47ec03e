/** Key conversion between GraphQL (camelCase) and REST bodies (snake_case). */

/** `ipAddress` -> `ip_address`, `deviceTypeId` -> `device_type_id`. Digits stay attached (`address1`). */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/**
 * Deep copy with every object key in snake_case; `renames` (GraphQL name -> REST name) wins over
 * the generic rule at any depth, for the names the rule gets wrong (`address1` -> `address_1`).
 * `__typename` is dropped.
 */
export function snakeKeys(value: unknown, renames: Readonly<Record<string, string>> = {}): unknown {
  if (Array.isArray(value)) return value.map((v) => snakeKeys(v, renames));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '__typename') continue;
    out[Object.hasOwn(renames, k) ? renames[k]! : snakeCase(k)] = snakeKeys(v, renames);
  }
  return out;
}
