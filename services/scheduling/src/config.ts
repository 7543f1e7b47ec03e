/** The scheduling process's own settings (main.ts), declared once (operator docs and deployment checks read them too). */
import { envList, envSubgraphUrl } from '@pylon/kit';
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
  DEVICES_URL: envSubgraphUrl('devices'),
  CONTENT_URL: envSubgraphUrl('content'),
  IDENTITY_URL: envSubgraphUrl('identity'),
};
