import type { CollectionSpec } from '@pylon/kit';

export const SCHEDULES: CollectionSpec = { name: 'schedules' };
export const SCHEDULE_GROUPS: CollectionSpec = { name: 'scheduleGroups' };
/** Emergency overrides; `open` (not yet announced as ended) is what a ping reads, through its index. */
export const OVERRIDES: CollectionSpec = { name: 'overrides', indexes: [{ name: 'open', fields: ['open'] }] };
/** One screen's acknowledgements of one override (id `<overrideId>:<deviceId>`). */
export const OVERRIDE_SCREENS: CollectionSpec = { name: 'overrideScreens', indexes: [{ name: 'override', fields: ['overrideId'] }] };
/** CAP alert feeds of an account. */
export const CAP_FEEDS: CollectionSpec = { name: 'capFeeds' };
/** The alerts a feed read (id derived from feed, sender and identifier: one record, one action). */
export const CAP_ALERTS: CollectionSpec = { name: 'capAlerts', indexes: [{ name: 'feed', fields: ['feedId'] }] };
/** The accounts with feeds (SYSTEM_TENANT), so the poller visits only those. */
export const CAP_FEED_ACCOUNTS: CollectionSpec = { name: 'capFeedAccounts' };
/** Where cross-account registries live. */
export const SYSTEM_TENANT = '_system';
/** Power schedules: one per target (a device, a device group or a tag). */
export const POWER_SCHEDULES: CollectionSpec = { name: 'powerSchedules', uniqueIndexes: [{ name: 'target', fields: ['scope', 'target'] }] };
/** The next display edge per device with a power schedule (id: device id; SYSTEM tenant), walked by due time. */
export const POWER_EDGES: CollectionSpec = { name: 'powerEdges', indexes: [{ name: 'due', fields: ['dueAt'] }] };
