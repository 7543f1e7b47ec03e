/**
 * `@pylon/adapters/documents`: what both DocumentStore adapters (lmdb/ and mongo/) share, no driver:
 * validation, value rules, secondary-index planning and keyset paging of the documents port.
 */
export * from './documents.shared.js';
export * from './documents.indexes.js';
