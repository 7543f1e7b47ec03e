/** The scheduling process's own settings (main.ts), declared once (operator docs and deployment checks read them too). */
import { z } from 'zod';
import { envList } from '@pylon/kit';
import { auditSinkEnv } from '@pylon/composition/audit-sink';

/** Settings the scheduling subgraph has in its own process and in the all-in-one. */
export const schedulingEnv = {
  /** IP addresses or CIDRs a CAP alert feed may reach although private or loopback (on-premise warning systems). */
  CAP_FEED_ALLOW_LIST: envList(),
};

export const schedulingProcessEnv = {
  ...schedulingEnv,
  /** Where screens' override acknowledgements are audited (the analytics ingest's audit topic). */
  ...auditSinkEnv,
  /** The subgraphs asked about devices, playlists/templates and the account (compose/k8s service names by default). */
  DEVICES_URL: z.string().url().default('http://devices:4001'),
  CONTENT_URL: z.string().url().default('http://content:4001'),
  IDENTITY_URL: z.string().url().default('http://identity:4001'),
};
