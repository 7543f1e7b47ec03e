/**
 * Which MongoDB driver errors mean "the database is not reachable right now" (read against the
 * mongodb 7.8 driver, src/error.ts): network failures and timeouts (MongoNetworkError and its
 * MongoNetworkTimeoutError), no suitable server within serverSelectionTimeoutMS
 * (MongoServerSelectionError), and the server codes of an election or shutdown in progress (the
 * driver's SDAM "not primary" and "node is recovering" sets, plus the network codes of its
 * retryable-read set), and mongoose's MongooseServerSelectionError for the first connect. Those answer UNAVAILABLE (503, retry later) instead of an internal error.
 */
import mongoose from 'mongoose';
import { AppError } from '@pylon/kit/errors';

const { MongoError, MongoNetworkError, MongoServerSelectionError } = mongoose.mongo;

/** Server error codes of a primary that is changing or going away (driver MONGODB_ERROR_CODES). */
export const UNAVAILABLE_CODES = new Set<number>([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  10058, // LegacyNotPrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** The driver's messages for the same states when a server sends no code. */
const UNAVAILABLE_MESSAGE = /not master|not primary|node is recovering/i;

export function isMongoUnavailable(e: unknown): boolean {
  if (e instanceof MongoNetworkError || e instanceof MongoServerSelectionError) return true;
  // The first connect of a mongoose Connection reports selection failure in its own class.
  if (e instanceof mongoose.Error.MongooseServerSelectionError) return true;
  if (!(e instanceof MongoError)) return false;
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
