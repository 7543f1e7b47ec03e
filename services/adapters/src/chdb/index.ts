/** `@pylon/adapters/chdb`: the AnalyticsStore on embedded chDB (the default of `npm start`). */
export * from './analytics.chdb.js';
