/**
 * Which mongodb driver errors answer 503 (UNAVAILABLE, retry later) and which stay internal, over
 * the driver's whole error hierarchy (mongodb 7.8, src/error.ts and src/cmap/errors.ts), each
 * error built with the driver's OWN class: the pool's classes are not exported from the package
 * root, so they are loaded from the driver mongoose itself loads.
 */
import { createRequire } from 'node:module';
import mongoose from 'mongoose';
import { AppError } from '@pylon/kit/errors';
import { isMongoUnavailable, mapUnavailable } from '../../src/mongo/errors.mongo.js';

const driver = mongoose.mongo;
// The very module instance mongoose uses (resolved from mongoose's own location).
const requireFromMongoose = createRequire(createRequire(import.meta.url).resolve('mongoose'));
const cmap = requireFromMongoose('mongodb/lib/cmap/errors.js') as {
  WaitQueueTimeoutError: new (message: string, address: string) => Error;
  PoolClearedError: new (pool: { address: string; serverError?: Error }, message?: string) => Error;
  PoolClearedOnNetworkError: new (pool: { address: string }) => Error;
  PoolClosedError: new (pool: { address: string }) => Error;
};

const pool = { address: 'mongo-0:27017', serverError: new driver.MongoNetworkError('connection reset') };
const labelled = (label: string, code?: number) => {
  const e = new driver.MongoServerError({ message: 'labelled', ...(code !== undefined ? { code } : {}) });
  e.addErrorLabel(label);
  return e;
};

const outages: [string, unknown][] = [
  [
    'WaitQueueTimeoutError (maxPoolSize in use, waitQueueTimeoutMS passed)',
    new cmap.WaitQueueTimeoutError('Timed out while checking out a connection from connection pool', pool.address),
  ],
  ['PoolClearedError', new cmap.PoolClearedError(pool)],
  ['PoolClearedOnNetworkError', new cmap.PoolClearedOnNetworkError(pool)],
  ['PoolClosedError (the client is closing)', new cmap.PoolClosedError(pool)],
  ['MongoNetworkError', new driver.MongoNetworkError('connection reset')],
  ['MongoNetworkTimeoutError', new driver.MongoNetworkTimeoutError('timed out')],
  ['MongoServerSelectionError', new driver.MongoServerSelectionError('no primary', {} as never)],
  ['MongoOperationTimeoutError (timeoutMS)', new driver.MongoOperationTimeoutError('Timed out during operation')],
  ['MongoTopologyClosedError (client closed by shutdown)', new driver.MongoTopologyClosedError()],
  ['MongoClientClosedError', new driver.MongoClientClosedError()],
  ['MongoNotConnectedError', new driver.MongoNotConnectedError('client must be connected')],
  ['RetryableWriteError label (the retry failed too)', labelled('RetryableWriteError')],
  ['SystemOverloadedError label', labelled('SystemOverloadedError', 462)],
  ['MaxTimeMSExpired (50)', new driver.MongoServerError({ message: 'operation exceeded time limit', code: 50 })],
  ['StaleConfig (13388)', new driver.MongoServerError({ message: 'stale config', code: 13388 })],
  ['FailedToSatisfyReadPreference (133)', new driver.MongoServerError({ message: 'no secondary', code: 133 })],
  ['write concern error of a stepped-down primary', new driver.MongoWriteConcernError({ writeConcernError: { code: 189, errmsg: 'stepped down' } } as never)],
  ['mongoose MongooseServerSelectionError', new mongoose.Error.MongooseServerSelectionError('no primary')],
];
for (const code of [6, 7, 89, 91, 189, 262, 9001, 10107, 10058, 11600, 11602, 13435, 13436]) {
  outages.push([`server code ${code}`, new driver.MongoServerError({ message: 'state change', code })]);
}

const notOutages: [string, unknown][] = [
  ['duplicate key (11000)', new driver.MongoServerError({ message: 'E11000 duplicate key', code: 11000 })],
  ['bad value (2)', new driver.MongoServerError({ message: 'bad filter', code: 2 })],
  ['AuthenticationFailed (18): a wrong password, not an outage', new driver.MongoServerError({ message: 'auth failed', code: 18 })],
  ['document validation (121)', new driver.MongoServerError({ message: 'Document failed validation', code: 121 })],
  ['MongoInvalidArgumentError', new driver.MongoInvalidArgumentError('bad option')],
  ['MongoParseError', new driver.MongoParseError('bad url')],
  ['MongoMissingCredentialsError', new driver.MongoMissingCredentialsError('no user')],
  ['TransientTransactionError label alone on a conflict (112, WriteConflict)', labelled('TransientTransactionError', 112)],
  ['a plain Error saying "not primary"', new Error('not primary')],
];

describe('errors.mongo: the driver error hierarchy', () => {
  test.each(outages)('%s answers UNAVAILABLE (503)', (_name, e) => {
    expect(isMongoUnavailable(e)).toBe(true);
    const mapped = mapUnavailable(e);
    expect(mapped).toBeInstanceOf(AppError);
    expect((mapped as AppError).code).toBe('UNAVAILABLE');
    // No driver detail (addresses, hosts) in what a client sees.
    expect((mapped as AppError).message).not.toMatch(/mongo|27017/i);
  });

  test.each(notOutages)('%s is not an outage', (_name, e) => {
    expect(isMongoUnavailable(e)).toBe(false);
    expect(mapUnavailable(e)).toBe(e);
  });

  test('the pool classes are the driver classes mongoose uses (the hierarchy assumed above)', () => {
    expect(new cmap.PoolClearedError(pool)).toBeInstanceOf(driver.MongoNetworkError);
    expect(new cmap.WaitQueueTimeoutError('t', pool.address)).toBeInstanceOf(driver.MongoDriverError);
    expect(new cmap.WaitQueueTimeoutError('t', pool.address)).not.toBeInstanceOf(driver.MongoNetworkError);
    expect(new cmap.WaitQueueTimeoutError('t', pool.address).name).toBe('MongoWaitQueueTimeoutError');
  });
});
