export { createAnalyticsSubgraph, type AnalyticsDeps } from './app.js';
export type { PingLog, PlayLog } from './domain/logs.js';
export { startIngest, type Ingest } from './ingest/ingest.js';
export { runAnalyticsMigrations, type MigrationOptions } from './migrations.js';
