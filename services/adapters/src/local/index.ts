/** `@pylon/adapters/local`: the BlobStore on the local filesystem (the default of `npm start`). */
export * from './blobs.local.js';
