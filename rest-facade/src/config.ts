/** The REST facade process (main.ts): its settings, declared once (the operator docs and the deployment checks read them too). */
import { z } from 'zod';
import { auditSinkEnv } from '@pylon/composition/audit-sink';
import { envInt, envLogLevel, envPort, envTrustProxy, metricsEnv } from '@pylon/kit';

export const restFacadeEnv = z.object({
  LOG_LEVEL: envLogLevel(),
  HOST: z.string().min(1).default('0.0.0.0'),
  TRUST_PROXY: envTrustProxy(),
  PORT: envPort(4001),
  ...metricsEnv,
  GATEWAY_URL: z.string().url(),
  GATEWAY_TIMEOUT_MS: envInt(10000, 100, 120000),
  ...auditSinkEnv,
});
