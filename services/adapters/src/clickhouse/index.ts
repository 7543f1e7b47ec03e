/** `@pylon/adapters/clickhouse`: the AnalyticsStore on a ClickHouse server. */
export * from './analytics.clickhouse.js';
