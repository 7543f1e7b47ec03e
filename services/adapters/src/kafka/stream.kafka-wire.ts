/**
 * What the Kafka stream (stream.kafka.ts) sends and reads on the wire, and how its failures look to
 * callers: JSON values, topic names Kafka accepts, the rebalance errors, timeouts as UNAVAILABLE.
 */
import type { KafkaMessage } from 'kafkajs';
import { AppError } from '@pylon/kit/errors';
import type { StreamMessage } from '@pylon/kit/ports/stream';

/** kafkajs protocol errors of a heartbeat or commit that mean the member lost (or may lose) its partitions. */
const REBALANCE_ERRORS = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'FENCED_INSTANCE_ID', 'NOT_COORDINATOR']);
export const isRebalance = (e: unknown) => typeof e === 'object' && e !== null && REBALANCE_ERRORS.has(String((e as { type?: unknown }).type));

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** An AppError('UNAVAILABLE') that keeps the engine's error as its cause, never in its message. */
export function unavailable(message: string, cause?: unknown): AppError {
  if (cause instanceof AppError) return cause;
  const e = new AppError('UNAVAILABLE', message);
  if (cause !== undefined) e.cause = cause;
  return e;
}

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  if (!(ms > 0) || !Number.isFinite(ms)) return p;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new AppError('UNAVAILABLE', `${what} timed out`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

/** A message as handlers see it; a value that is not JSON (another producer's) is its raw text. */
export function decode(m: KafkaMessage, topic: string): StreamMessage {
  let value: unknown = null;
  if (m.value) {
    const text = m.value.toString('utf8');
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
  }
  const out: StreamMessage = { value, timestamp: Number(m.timestamp), topic };
  if (m.key) out.key = m.key.toString('utf8');
  return out;
}

export function encodeValue(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value ?? null);
  } catch {
    json = undefined;
  }
  if (json === undefined) throw new AppError('BAD_USER_INPUT', 'message value is not JSON-serialisable', { field: 'value' });
  return json;
}

export function checkTopic(topic: string): void {
  if (typeof topic !== 'string' || !/^[A-Za-z0-9._-]{1,249}$/.test(topic)) {
    throw new AppError('BAD_USER_INPUT', 'topic must be 1-249 characters of A-Z a-z 0-9 . _ -', { field: 'topic' });
  }
}
