/** The scheduling process's own settings (main.ts), declared once (operator docs and deployment checks read them too). */
import { z } from 'zod';

export const schedulingProcessEnv = {
  /** The subgraphs asked about devices, playlists/templates and the account (compose/k8s service names by default). */
  DEVICES_URL: z.string().url().default('http://devices:4001'),
  CONTENT_URL: z.string().url().default('http://content:4001'),
  IDENTITY_URL: z.string().url().default('http://identity:4001'),
};
