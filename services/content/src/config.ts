/**
 * The content subgraph's settings, declared once: its own process (main.ts) and the all-in-one
 * (launcher/src/all-in-one.config.ts) both spread `contentEnv` into their zod schema and build the runtime's
 * settings with `contentSettings`.
 */
import { z } from 'zod';
import { envInt, envList, envSubgraphUrl } from '@pylon/kit';
import type { ContentSettings } from './runtime.js';

export const contentEnv = {
  /** Largest media file one upload or URL import may store (413 past it). */
  MEDIA_MAX_UPLOAD_BYTES: envInt(512 * 1024 * 1024, 1024, 50 * 1024 * 1024 * 1024),
  /** Deadline of a whole URL import download. */
  MEDIA_IMPORT_TIMEOUT_SECONDS: envInt(60, 1, 3600),
  /** IP addresses or CIDRs a URL import may reach although private or loopback (on-premise sources). */
  MEDIA_IMPORT_ALLOW_LIST: envList(),
  /** Lifetime of signed fileUrl / thumbnailUrl addresses. */
  MEDIA_URL_TTL_SECONDS: envInt(3600, 60, 7 * 86_400),
  /** Absolute prefix for fileUrl (e.g. https://signage.example.com); empty: relative to the REST base. */
  MEDIA_PUBLIC_BASE_URL: z.string().url().or(z.literal('')).default(''),
  /** How often due content.expired / content.running_empty announcements are looked for; 0: never (another replica sweeps). */
  CONTENT_EXPIRY_SWEEP_SECONDS: envInt(15, 0, 3600),
  /** How long before a playlist or file runs empty because of expiry its alert opens (content.running_empty). */
  CONTENT_RUNS_EMPTY_LEAD_HOURS: envInt(24, 0, 24 * 90),
};

export type ContentEnv = z.infer<z.ZodObject<typeof contentEnv>>;

/** The content process (main.ts) also reaches the datatables process (a template module's dataTableId is checked there). */
export const contentProcessEnv = {
  ...contentEnv,
  DATATABLES_URL: envSubgraphUrl('datatables'),
};

export function contentSettings(env: ContentEnv): Partial<ContentSettings> {
  return {
    maxUploadBytes: env.MEDIA_MAX_UPLOAD_BYTES,
    importTimeoutMs: env.MEDIA_IMPORT_TIMEOUT_SECONDS * 1000,
    importAllowList: env.MEDIA_IMPORT_ALLOW_LIST,
    fileUrlTtlSeconds: env.MEDIA_URL_TTL_SECONDS,
    publicBaseUrl: env.MEDIA_PUBLIC_BASE_URL,
    expirySweepSeconds: env.CONTENT_EXPIRY_SWEEP_SECONDS,
    runsEmptyLeadSeconds: env.CONTENT_RUNS_EMPTY_LEAD_HOURS * 3600,
  };
}
