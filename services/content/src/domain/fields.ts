/** zod pieces every content input shares, so names, tags and dates are checked alike everywhere. */
import { z } from 'zod';

export const nameField = z.string().trim().min(1).max(200);
export const idField = z.string().trim().min(1).max(200);
export const tagsField = z.array(z.string().trim().min(1).max(100)).max(50);
/** An ISO 8601 instant; stored as given after checking it parses. */
export const instantField = z
  .string()
  .max(40)
  .refine((v) => !Number.isNaN(Date.parse(v)), { message: 'must be an ISO 8601 date-time' });
