/** The time ranges the analytics pages chart, and the instants the API takes for one. */
import type { AnalyticsIntervalType } from '../gql/graphql';

/** Each range with the bucket it is charted in (hours for a day, days beyond). */
export const RANGES: Record<string, { days: number; interval: AnalyticsIntervalType }> = {
  'Last 24 hours': { days: 1, interval: 'HOUR' },
  'Last 7 days': { days: 7, interval: 'DAY' },
  'Last 30 days': { days: 30, interval: 'DAY' },
};

const isoSecond = (ms: number) => new Date(ms).toISOString().slice(0, 19) + 'Z';

/** The `days` up to `now` as the API's start and end dates (ISO, to the second). */
export const rangeDates = (days: number, now: number) => ({ start: isoSecond(now - days * 86_400_000), end: isoSecond(now) });
