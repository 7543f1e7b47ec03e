/**
 * Settings of webhook delivery: the worker's own role (webhooks.main.ts, "webhook-worker") and the
 * all-in-one (launcher/src/all-in-one.config.ts spreads `webhookDeliveryEnv`).
 */
import type { z } from 'zod';
import { envInt, envList, serverEnv } from '@pylon/kit';
import { backendEnv, backendRules } from '@pylon/composition/backends';
import type { RetryPolicy } from './features/webhooks/webhook-retry-policy.js';

export const webhookDeliveryEnv = {
  /**
   * Addresses deliveries may reach although they are private, loopback or link-local (on-premise
   * receivers; tests' loopback receiver), comma-separated. Empty: only public addresses.
   */
  WEBHOOK_ALLOW_LIST: envList(),
  /** Whole-attempt deadline. */
  WEBHOOK_TIMEOUT_MS: envInt(10_000, 100, 60_000),
  /** First retry delay; doubles per attempt (with jitter) up to WEBHOOK_RETRY_MAX_DELAY_MS. */
  WEBHOOK_RETRY_BASE_MS: envInt(5_000, 10, 3_600_000),
  WEBHOOK_RETRY_MAX_DELAY_MS: envInt(3_600_000, 10, 86_400_000),
  /** Attempts before a delivery is given up (DEAD); the defaults span about 24 hours. */
  WEBHOOK_MAX_ATTEMPTS: envInt(30, 1, 100),
  /** An endpoint failing this long without a success is disabled (webhook_endpoint.disabled). */
  WEBHOOK_DISABLE_AFTER_SECONDS: envInt(86_400, 1, 30 * 86_400),
  /** Attempts in flight per endpoint; 1 keeps strict event order (at the cost of throughput to that endpoint). */
  WEBHOOK_ENDPOINT_CONCURRENCY: envInt(8, 1, 64),
  /** How often due retries are looked for. */
  WEBHOOK_POLL_MS: envInt(1_000, 10, 60_000),
};

type Parsed = z.infer<z.ZodObject<typeof webhookDeliveryEnv>>;

export const retryPolicyFrom = (env: Parsed): RetryPolicy => ({
  baseMs: env.WEBHOOK_RETRY_BASE_MS,
  maxDelayMs: env.WEBHOOK_RETRY_MAX_DELAY_MS,
  maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
  disableAfterMs: env.WEBHOOK_DISABLE_AFTER_SECONDS * 1000,
  timeoutMs: env.WEBHOOK_TIMEOUT_MS,
});

/** The webhook-worker role (webhooks.main.ts). */
export const webhookWorkerEnv = backendEnv
  .extend({
    ...serverEnv(4011),
    ...webhookDeliveryEnv,
  })
  .check(...backendRules);
