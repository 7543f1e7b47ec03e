/** Shared by the deployment checks: the repository root and the role tables. */
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Fills compose-style `${VAR}`, `${VAR:-default}` and `${VAR:?message}` with test values (defaults win). */
export function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::?([-?])([^}]*))?\}/g, (_m, name: string, op: string | undefined, arg: string | undefined) => {
    if (vars[name] !== undefined) return vars[name] as string;
    if (op === '-') return arg ?? '';
    if (op === '?') throw new Error(`${name} is required: ${arg}`);
    return '';
  });
}
