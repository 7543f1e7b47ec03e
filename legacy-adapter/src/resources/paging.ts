/** The paging of the legacy list resources, as on current REST: take 1..1000 (default 100), page 0-based. */
import { z } from 'zod';
import { pageWindow, type PageWindow } from '@pylon/kit';
import { parseQuery, type LegacyQuery } from './resource.js';

const Query = z.object({
  take: z.coerce.number().int().min(1).max(1000).optional(),
  page: z.coerce.number().int().min(0).max(1_000_000).optional(),
});

/** The limit/offset a list request's take and page ask for (400 naming the parameter when out of range). */
export function legacyPageWindow(query: LegacyQuery): PageWindow {
  const { take, page } = parseQuery(Query, query);
  return pageWindow(take, page, { defaultTake: 100 });
}
