/**
 * `@pylon/adapters/analytics`: what both AnalyticsStore adapters (chdb/ and clickhouse/) share, no
 * engine: the numbered-migration runner, its cluster rendering and the raw tables' retention (the
 * composition roots call these), and the settings, error mapping and row codec (the adapters import
 * those files directly).
 */
export * from './analytics.migrations.js';
export * from './analytics.cluster.js';
export * from './analytics.retention.js';
