/**
 * Every Pylon process one image runs, by name (`node --conditions=pylon-dist launcher/dist/role.main.js <role>`,
 * the image's entrypoint): one line per role. `dir` is the workspace package, `file` its entry
 * under src/ (tsx) or dist/ (compiled). Pure data: the role runner, the deployment checks and the
 * operator docs read it.
 */
export type RoleKind = 'subgraph' | 'edge' | 'worker' | 'job' | 'cli' | 'all-in-one';

export interface Role {
  name: string;
  dir: string;
  file: string;
  kind: RoleKind;
  /** The HTTP port it serves on by default (health at /healthz and /readyz there). */
  port?: number;
}

export const ROLES: readonly Role[] = [
  { name: 'identity', dir: 'services/identity', file: 'main', kind: 'subgraph', port: 4001 },
  { name: 'devices', dir: 'services/devices', file: 'main', kind: 'subgraph', port: 4001 },
  { name: 'content', dir: 'services/content', file: 'main', kind: 'subgraph', port: 4001 },
  { name: 'scheduling', dir: 'services/scheduling', file: 'main', kind: 'subgraph', port: 4001 },
  { name: 'datatables', dir: 'services/datatables', file: 'main', kind: 'subgraph', port: 4001 },
  { name: 'analytics', dir: 'services/analytics', file: 'main', kind: 'subgraph', port: 4001 },
  { name: 'gateway', dir: 'gateway', file: 'gateway.main', kind: 'edge', port: 4000 },
  { name: 'rest', dir: 'rest-facade', file: 'main', kind: 'edge', port: 4001 },
  { name: 'legacy', dir: 'legacy-adapter', file: 'main', kind: 'edge', port: 4080 },
  { name: 'telemetry-consumer', dir: 'services/analytics', file: 'ingest.main', kind: 'worker' },
  { name: 'webhook-worker', dir: 'services/identity', file: 'webhooks.main', kind: 'worker' },
  { name: 'migrate', dir: 'launcher', file: 'migrate.main', kind: 'job' },
  { name: 'admin', dir: 'services/identity', file: 'admin.cli', kind: 'cli' },
  { name: 'verify', dir: 'launcher', file: 'verify.main', kind: 'cli' },
  { name: 'all-in-one', dir: 'launcher', file: 'all-in-one.main', kind: 'all-in-one', port: 4000 },
];

export const roleNamed = (name: string): Role | undefined => ROLES.find((r) => r.name === name);

/** The role's entry file, relative to the repository root: compiled (dist/*.js) or source (src/*.ts). */
export const roleEntry = (role: Role, compiled: boolean): string => `${role.dir}/${compiled ? 'dist' : 'src'}/${role.file}.${compiled ? 'js' : 'ts'}`;
