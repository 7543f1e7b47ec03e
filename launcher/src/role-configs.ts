/**
 * Each role's config schema (roles.ts), the one its entry loads: the deployment checks validate
 * docker-compose.yml and the Kubernetes manifests against them, and the operator docs' settings
 * table is generated from them. Kept beside the role table, away from the role runner (which
 * loads none of this).
 */
import type { z } from 'zod';
import { backendEnv, backendRules } from '@pylon/composition/backends';
import { subgraphConfig } from '@pylon/composition/subgraph-process';
import { analyticsProcessEnv } from '@pylon/analytics/config';
import { ingestEnv } from '@pylon/analytics/ingest.config';
import { contentProcessEnv } from '@pylon/content/config';
import { datatablesProcessEnv } from '@pylon/datatables/config';
import { devicesProcessEnv } from '@pylon/devices/config';
import { identityProcessEnv } from '@pylon/identity/config';
import { webhookWorkerEnv } from '@pylon/identity/webhooks.config';
import { legacyAdapterEnv } from '@pylon/legacy-adapter/config';
import { restFacadeEnv } from '@pylon/rest-facade/config';
import { schedulingProcessEnv } from '@pylon/scheduling/config';
import { gatewayEnv } from '@pylon/gateway/config';
import { allInOneEnv } from './all-in-one.config.js';
import { migrateEnv } from './migrate.config.js';

export type RoleSchema = z.ZodObject<z.ZodRawShape>;

export const ROLE_CONFIGS: Readonly<Record<string, RoleSchema>> = {
  identity: subgraphConfig(identityProcessEnv),
  devices: subgraphConfig(devicesProcessEnv),
  content: subgraphConfig(contentProcessEnv),
  scheduling: subgraphConfig(schedulingProcessEnv),
  datatables: subgraphConfig(datatablesProcessEnv),
  analytics: subgraphConfig(analyticsProcessEnv),
  gateway: gatewayEnv,
  rest: restFacadeEnv,
  legacy: legacyAdapterEnv,
  'telemetry-consumer': ingestEnv,
  'webhook-worker': webhookWorkerEnv,
  migrate: migrateEnv,
  admin: backendEnv.check(...backendRules),
  'all-in-one': allInOneEnv,
} as unknown as Record<string, RoleSchema>;

/** Variables every Node process may be given besides its settings. */
export const PROCESS_ENV = ['NODE_ENV', 'NODE_OPTIONS', 'TZ'] as const;

/** Problems with a role's environment: unknown names (a renamed setting) and values its schema refuses. */
export function checkRoleEnv(role: string, env: Record<string, string>): string[] {
  const schema = ROLE_CONFIGS[role];
  if (!schema) return [`role '${role}' has no config schema`];
  const known = new Set([...Object.keys(schema.shape), ...PROCESS_ENV]);
  const problems = Object.keys(env)
    .filter((k) => !known.has(k))
    .map((k) => `${k}: not a setting of the ${role} role`);
  const parsed = schema.safeParse(env);
  if (!parsed.success) problems.push(...parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  return problems;
}
