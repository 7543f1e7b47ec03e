/** `@pylon/adapters/mongo`: the DocumentStore on MongoDB (mongoose). */
export * from './documents.mongo.js';
export * from './cleanup.mongo.js';
