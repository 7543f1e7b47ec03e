/**
 * Which MongoDB driver errors mean "the database cannot serve this right now, retry later" (read
 * against the mongodb 7.8 driver, src/error.ts and src/cmap/errors.ts):
 * - not reachable: MongoNetworkError (with MongoNetworkTimeoutError, and the pool's
 *   PoolClearedError, a subclass), no suitable server within serverSelectionTimeoutMS
 *   (MongoServerSelectionError; mongoose's MongooseServerSelectionError for the first connect);
 * - busy: no pooled connection within waitQueueTimeoutMS (the pool's WaitQueueTimeoutError, a
 *   MongoDriverError the package does not export), an operation past timeoutMS
 *   (MongoOperationTimeoutError), a server time limit (MaxTimeMSExpired, ExceededTimeLimit), a
 *   server that labels itself overloaded (SystemOverloadedError);
 * - changing: the server codes of an election, shutdown or shard move (the driver's SDAM "not
 *   primary" and "node is recovering" sets, its retryable-read codes), a write the driver already
 *   retried once (RetryableWriteError label);
 * - closing: the client or its pool closed under the call (this process shutting down).
 * Those answer UNAVAILABLE (503) instead of an internal error. Bad input, duplicate keys,
 * validation, credentials and configuration errors stay what they are.
 */
import mongoose from 'mongoose';
import { AppError } from '@pylon/kit/errors';
import { TENANT_ID_INDEX, UNIQUE_PREFIX } from './indexes.mongo.js';

const {
  MongoError,
  MongoNetworkError,
  MongoServerSelectionError,
  MongoOperationTimeoutError,
  MongoTopologyClosedError,
  MongoClientClosedError,
  MongoNotConnectedError,
} = mongoose.mongo;

/** Server error codes of a primary that is changing, going away, or out of time (driver MONGODB_ERROR_CODES). */
export const UNAVAILABLE_CODES = new Set<number>([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired
  89, // NetworkTimeout
  91, // ShutdownInProgress
  133, // FailedToSatisfyReadPreference
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  10058, // LegacyNotPrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13388, // StaleConfig (a chunk moving between shards)
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Error names of the pool (src/cmap/errors.ts): not exported by the package, so told apart by their stable `name`. */
const UNAVAILABLE_NAMES = new Set(['MongoWaitQueueTimeoutError', 'MongoPoolClosedError']);

/** Labels the driver or server put on an error that a later attempt can get past. */
const UNAVAILABLE_LABELS = ['RetryableWriteError', 'SystemOverloadedError'];

/** The driver's messages for the same states when a server sends no code. */
const UNAVAILABLE_MESSAGE = /not master|not primary|node is recovering/i;

export function isMongoUnavailable(e: unknown): boolean {
  if (e instanceof MongoNetworkError || e instanceof MongoServerSelectionError || e instanceof MongoOperationTimeoutError) return true;
  if (e instanceof MongoTopologyClosedError || e instanceof MongoClientClosedError || e instanceof MongoNotConnectedError) return true;
  // The first connect of a mongoose Connection reports selection failure in its own class.
  if (e instanceof mongoose.Error.MongooseServerSelectionError) return true;
  if (!(e instanceof MongoError)) return false;
  if (UNAVAILABLE_NAMES.has(e.name)) return true;
  if (UNAVAILABLE_LABELS.some((label) => e.hasErrorLabel(label))) return true;
  const code = typeof e.code === 'number' ? e.code : Number(e.code);
  if (UNAVAILABLE_CODES.has(code)) return true;
  // A write concern error carries the server's code on the result.
  const wce = (e as { result?: { writeConcernError?: { code?: unknown } } }).result?.writeConcernError?.code;
  if (typeof wce === 'number' && UNAVAILABLE_CODES.has(wce)) return true;
  return typeof e.code !== 'number' && UNAVAILABLE_MESSAGE.test(e.message);
}

/** UNAVAILABLE for an outage (no driver detail in the message), the error itself otherwise. */
export function mapUnavailable(e: unknown): unknown {
  return isMongoUnavailable(e) ? new AppError('UNAVAILABLE', 'the document store is unavailable, retry later') : e;
}

function errorCode(e: unknown): unknown {
  return typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
}

export function isDuplicateKeyError(e: unknown): boolean {
  const code = errorCode(e);
  return code === 11000 || code === 11001;
}

/** The spec's index name from a duplicate-key error ("... index: uniq_slug dup key: ..."). */
export function indexOfDuplicate(e: unknown, logicalByIndex: Map<string, string>): string | undefined {
  const msg =
    typeof e === 'object' && e !== null ? String((e as { errmsg?: unknown; message?: unknown }).errmsg ?? (e as { message?: unknown }).message ?? '') : '';
  const m = /index: (\S+)/.exec(msg);
  const raw = m?.[1];
  if (!raw) return undefined;
  const logical = logicalByIndex.get(raw);
  if (logical) return logical;
  if (raw === TENANT_ID_INDEX) return 'id';
  return raw.startsWith(UNIQUE_PREFIX) ? raw.slice(UNIQUE_PREFIX.length) : undefined;
}

/** A failed index build: stored duplicates are named, an outage answers UNAVAILABLE. */
export function mapReadyError(e: unknown, collection: string): unknown {
  if (isDuplicateKeyError(e)) return new Error(`documents: cannot build a unique index on '${collection}': stored documents share a value`, { cause: e });
  return mapUnavailable(e);
}
