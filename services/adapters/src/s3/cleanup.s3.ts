/** Deletes every object under a prefix of a bucket: what a self-check or a test run wrote there (under its own prefix). */
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { s3ClientConfig, type S3BlobStoreOptions } from './blobs.s3.js';

/** Answers how many objects were deleted. The prefix must be non-empty. */
export async function deleteS3Prefix(o: Omit<S3BlobStoreOptions, 'prefix' | 'partSizeBytes'>, prefix: string): Promise<number> {
  if (!prefix) throw new Error('deleteS3Prefix: an empty prefix would match the whole bucket');
  const client = new S3Client(s3ClientConfig(o));
  let deleted = 0;
  try {
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: o.bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
      const keys = (page.Contents ?? []).flatMap((c) => (c.Key ? [{ Key: c.Key }] : []));
      if (keys.length) {
        await client.send(new DeleteObjectsCommand({ Bucket: o.bucket, Delete: { Objects: keys, Quiet: true } }));
        deleted += keys.length;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return deleted;
  } finally {
    client.destroy();
  }
}
