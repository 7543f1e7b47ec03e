/**
 * The image's entrypoint: runs one role of roles.ts in this process, the rest of the arguments
 * passed on (`role.main.js admin create-account --name X`). Compiled, it loads the role's
 * compiled entry (run it with --conditions=pylon-dist); under tsx, the source one.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { roleEntry, roleNamed, ROLES } from './roles.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const compiled = import.meta.url.endsWith('.js');
const name = process.argv[2];
const role = name ? roleNamed(name) : undefined;
if (!role) {
  process.stderr.write(`usage: role.main <role> [arguments]\nroles: ${ROLES.map((r) => r.name).join(', ')}\n`);
  process.exit(2);
}
const entry = root + roleEntry(role, compiled);
if (!existsSync(entry)) {
  process.stderr.write(`role '${role.name}' is not in this build (${roleEntry(role, compiled)} is missing)\n`);
  process.exit(2);
}
// The role sees its own arguments where it would if started directly.
process.argv = [process.argv[0] as string, entry, ...process.argv.slice(3)];
await import(pathToFileURL(entry).href);
