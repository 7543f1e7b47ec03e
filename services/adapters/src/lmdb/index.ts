/** `@pylon/adapters/lmdb`: the embedded DocumentStore (LMDB + mingo) and the durable EventStream on LMDB (the defaults of `npm start`). */
export * from './documents.lmdb.js';
export * from './stream.lmdb.js';
