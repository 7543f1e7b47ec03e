/**
 * The Redis side of the Redis stream: connections, the entry format, reply shapes, the fenced
 * renew/acknowledge script and stream-id order. No state; stream.redis.ts and
 * stream.redis-member.ts hold that.
 */
import type { Redis } from 'ioredis';
import { AppError } from '@pylon/kit/errors';
import type { StreamMessage } from '@pylon/kit/ports/stream';
import { toJson } from '../memory/cache.memory.js';
import { openRedis } from './connection.redis.js';

/** How the stream reaches Redis (part of RedisStreamOptions). */
export interface RedisConnectionOptions {
  url: string;
  /** Longest a command may take (blocking reads excepted). Default 5 000 ms. */
  commandTimeoutMs?: number;
  onError?: (error: Error) => void;
}

export type Entry = [id: string, fields: string[]];

/** The longest one blocking read waits. */
export const BLOCK_MS = 250;

/**
 * An XREADGROUP reply as [stream key, entries] pairs: RESP2 answers a list of pairs, RESP3 a map
 * (which ioredis hands over flattened: key, entries, key, entries...); no reply (timeout) is none.
 */
export function streamsOf(reply: unknown): [string, Entry[]][] {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  if (typeof reply[0] !== 'string') return reply as [string, Entry[]][];
  const out: [string, Entry[]][] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) out.push([reply[i] as string, reply[i + 1] as Entry[]]);
  return out;
}

/**
 * KEYS[1] the stream; ARGV group, member, 'renew' or 'ack', then the entry ids. Returns 1 when the
 * member owned every entry (and renewed or acknowledged them), 0 when another member holds one:
 * then nothing is changed. Atomic, so no claim can slip between the check and the change.
 */
export const FENCED = `
for i = 4, #ARGV do
  local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if #p == 0 or p[1][2] ~= ARGV[2] then return 0 end
end
for i = 4, #ARGV, 1000 do
  local ids = {}
  for j = i, math.min(i + 999, #ARGV) do ids[#ids + 1] = ARGV[j] end
  if ARGV[3] == 'ack' then
    redis.call('XACK', KEYS[1], ARGV[1], unpack(ids))
  else
    ids[#ids + 1] = 'JUSTID'
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, unpack(ids))
  end
end
return 1`;

export const unavailable = (what: string, cause?: unknown) => {
  if (cause instanceof AppError) return cause;
  const e = new AppError('UNAVAILABLE', `${what} is unavailable`);
  if (cause !== undefined) e.cause = cause;
  return e;
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

export function connect(o: RedisConnectionOptions, name: string, blocking: boolean): Redis {
  // A blocking read waits BLOCK_MS by itself; the command timeout must outlast it.
  return openRedis({ ...o, commandTimeoutMs: (o.commandTimeoutMs ?? 5_000) + (blocking ? BLOCK_MS : 0), connectTimeoutMs: 2_000 }, name);
}

/** The entry's fields; a value that is not JSON-serialisable is BAD_USER_INPUT (kit's toJson). */
export function encode(m: StreamMessage, now: number): string[] {
  return ['v', toJson(m.value ?? null), 't', String(m.timestamp ?? now), ...(m.key !== undefined && m.key !== null ? ['k', m.key] : [])];
}

export function decode(fields: string[], topic: string): StreamMessage {
  const f = fieldsOf(fields) as Record<string, string>;
  let value: unknown;
  try {
    value = JSON.parse(f.v ?? 'null');
  } catch {
    value = f.v; // written by another producer: handed over as its raw text
  }
  const m: StreamMessage = { value, timestamp: Number(f.t) || 0, topic };
  if (f.k !== undefined) m.key = f.k;
  return m;
}

/** A flat [name, value, name, value ...] reply (entry fields, an XINFO row) as an object. */
export function fieldsOf(row: readonly unknown[]): Record<string, unknown> {
  const f: Record<string, unknown> = {};
  for (let i = 0; i + 1 < row.length; i += 2) f[String(row[i])] = row[i + 1];
  return f;
}

/** Compares stream ids (`ms-seq`). */
export function idBefore(a: string, b: string): boolean {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am < bm || (am === bm && as < bs);
}
