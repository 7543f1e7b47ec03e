/** `@pylon/adapters/s3`: the BlobStore on S3-compatible object storage (@aws-sdk/client-s3); one driver, one entry. */
export * from './blobs.s3.js';
export * from './cleanup.s3.js';
