/**
 * Contract every DocumentStore adapter passes (embedded LMDB + mingo, MongoDB). It pins the
 * semantics repositories rely on: tenant scoping, the Mongo filter subset, BSON sort order with
 * `id` as the final tie-breaker, optimistic concurrency, unique indexes (partial: documents that
 * lack an indexed field are not indexed) and durability across reopen.
 */
import { AppError } from '../errors.js';
import type { Collection, CollectionSpec, DocumentStore, Filter, Stored } from '../ports/documents.js';
import { afterEach, beforeEach, describe, expect, test } from './harness.js';

export interface ContractSubject {
  store: DocumentStore;
  /** Closes the store and opens a new one over the same data. */
  reopen?: () => Promise<DocumentStore>;
  /** Closes whatever store is current and removes its data. */
  cleanup: () => Promise<void>;
  /** A second live store over the same data, as a second replica opens it (the caller closes it). */
  twin?: () => Promise<DocumentStore>;
}

export interface ContractOptions {
  /**
   * Several processes share the store (MongoDB): replicas of two versions run against it during a
   * rolling deploy. The embedded store has one process by design; those cases report as skipped.
   */
  sharedByReplicas?: boolean;
}

interface Screen {
  name: string;
  kind: string;
  size?: number;
  tags?: string[];
  location?: { floor: number; room?: string; slot?: string };
  online?: boolean;
  note?: string | null;
  serial?: string;
  settings?: Record<string, unknown>;
  at?: Date;
}

interface Device {
  label: string;
  registrationKey?: string;
}

const A = 'acct_acme';
const B = 'acct_globex';

const ENGINE_NAMES = /lmdb|mongo|mingo|bson/i;

async function expectCode(p: Promise<unknown>, code: 'DUPLICATE_KEY' | 'VERSION_CONFLICT' | 'BAD_USER_INPUT'): Promise<AppError> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(AppError);
  const err = caught as AppError;
  expect(err.code).toBe(code);
  expect(err.message).not.toMatch(ENGINE_NAMES);
  return err;
}

const ids = (docs: Array<{ id: string }>): string[] => docs.map((d) => d.id);
const idSet = (docs: Array<{ id: string }>): string[] => ids(docs).sort();

/** The ids a keyset walk visits in pages of `size`, each page after the previous one's `keys` (its sort fields, then id). */
async function walkPages<T extends object>(col: Collection<T>, filter: Filter, sort: Record<string, 1 | -1>, size: number, keys: string[]): Promise<string[]> {
  const seen: string[] = [];
  let after: unknown[] | undefined;
  for (let guard = 0; guard < 40; guard++) {
    const page = await col.find(A, filter, { sort, limit: size, ...(after ? { after } : {}) });
    seen.push(...ids(page));
    const last = page.at(-1) as Record<string, unknown> | undefined;
    if (page.length < size || !last) break;
    after = keys.map((k) => last[k] ?? null);
  }
  return seen;
}

const SCREENS: CollectionSpec = { name: 'screens' };
const UNIQUE_SCREENS: CollectionSpec = {
  name: 'screens_u',
  uniqueIndexes: [
    { name: 'serial', fields: ['serial'] },
    { name: 'slot', fields: ['location.floor', 'location.slot'] },
  ],
};
const DEVICES: CollectionSpec = {
  name: 'devices',
  uniqueIndexes: [
    { name: 'registrationKey', fields: ['registrationKey'], scope: 'global' },
    { name: 'label', fields: ['label'] },
  ],
};

const FIXTURES: Array<Screen & { id: string }> = [
  { id: 'c', name: 'Cafeteria', kind: 'kiosk', size: 21, tags: [], location: { floor: 1 }, online: true },
  { id: 'a', name: 'Lobby', kind: 'screen', size: 55, tags: ['lobby', 'hd'], location: { floor: 1, room: 'A1' }, online: true },
  { id: 'e', name: 'Back office', kind: 'kiosk', size: 10, location: { floor: 3, room: 'C1' }, online: false },
  { id: 'b', name: 'lobby annex', kind: 'screen', size: 32, tags: ['lobby'], location: { floor: 2, room: 'B7' }, online: false },
  { id: 'd', name: 'Entrance', kind: 'screen', tags: ['hd'], note: null },
];

export function documentsContract(name: string, make: () => Promise<ContractSubject>, contractOptions: ContractOptions = {}): void {
  const replicated = contractOptions.sharedByReplicas ? test : test.skip;
  describe(`documents contract: ${name}`, () => {
    let subject: ContractSubject;
    let store: DocumentStore;

    beforeEach(async () => {
      subject = await make();
      store = subject.store;
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    const screens = (): Collection<Screen> => store.collection<Screen>(SCREENS);

    async function seed(): Promise<Collection<Screen>> {
      const col = screens();
      for (const f of FIXTURES) await col.insert(A, f);
      await col.insert(B, { id: 'x', name: 'Lobby', kind: 'screen', size: 55, tags: ['lobby', 'hd'] });
      await col.insert(B, { id: 'a', name: 'Other tenant a', kind: 'kiosk', size: 99 });
      return col;
    }

    test('ping answers', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    describe('insert and findById', () => {
      test('stores the document with meta fields and reads it back', async () => {
        const col = screens();
        const at = new Date('2024-05-06T07:08:09.010Z');
        const saved = await col.insert(A, { id: 's1', name: 'Lobby', kind: 'screen', tags: ['x'], location: { floor: 2 }, at });
        expect(saved).toMatchObject({ id: 's1', accountId: A, version: 1, name: 'Lobby', kind: 'screen', tags: ['x'], location: { floor: 2 } });
        expect(saved.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        expect(saved.updatedAt).toBe(saved.createdAt);
        const found = await col.findById(A, 's1');
        expect(found).toEqual(saved);
        expect(found?.at).toBeInstanceOf(Date);
        expect(found?.at?.getTime()).toBe(at.getTime());
        expect(found).not.toHaveProperty('_id');
        expect(Object.getPrototypeOf(found)).toBe(Object.prototype);
        expect(structuredClone(found)).toEqual(found);
      });

      test('returns null for an unknown id', async () => {
        await expect(screens().findById(A, 'missing')).resolves.toBeNull();
      });

      test('generates distinct UUID ids when none is given', async () => {
        const col = screens();
        const one = await col.insert(A, { name: 'one', kind: 'screen' });
        const two = await col.insert(A, { name: 'two', kind: 'screen' });
        expect(one.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(two.id).not.toBe(one.id);
        expect((await col.findById(A, two.id))?.name).toBe('two');
      });

      test('generated ids are time-ordered, so unsorted lists come in creation order', async () => {
        const col = screens();
        const made: string[] = [];
        for (let i = 0; i < 20; i++) made.push((await col.insert(A, { name: `n${i}`, kind: 'screen' })).id);
        const batch = await Promise.all(Array.from({ length: 20 }, (_, i) => col.insert(A, { name: `b${i}`, kind: 'screen' })));
        made.push(...batch.map((d) => d.id));
        expect(ids(await col.find(A))).toEqual(made);
      });

      test('the store owns meta fields and drops undefined properties', async () => {
        const col = screens();
        const forged = { name: 'n', kind: 'screen', version: 42, accountId: B, createdAt: 'x', note: undefined } as Screen;
        const saved = await col.insert(A, forged);
        expect(saved.version).toBe(1);
        expect(saved.accountId).toBe(A);
        expect(saved.createdAt).not.toBe('x');
        expect(saved).not.toHaveProperty('note');
        expect(await col.findById(A, saved.id)).not.toHaveProperty('note');
        expect(await col.findById(B, saved.id)).toBeNull();
      });

      test('an existing id in the same tenant is DUPLICATE_KEY and writes nothing', async () => {
        const col = screens();
        await col.insert(A, { id: 'dup', name: 'first', kind: 'screen' });
        await expectCode(col.insert(A, { id: 'dup', name: 'second', kind: 'screen' }), 'DUPLICATE_KEY');
        expect((await col.findById(A, 'dup'))?.name).toBe('first');
        expect(await col.count(A)).toBe(1);
      });

      test('an unusable given id is BAD_USER_INPUT; reads by such ids find nothing', async () => {
        const col = screens();
        await expectCode(col.insert(A, { id: '', name: 'n', kind: 'screen' }), 'BAD_USER_INPUT');
        await expectCode(col.insert(A, { id: 'a\u0000b', name: 'n', kind: 'screen' }), 'BAD_USER_INPUT');
        await expect(col.findById(A, 'a\u0000b')).resolves.toBeNull();
        await expect(col.update(A, '', { $set: { name: 'x' } })).resolves.toBeNull();
        await expect(col.delete(A, '')).resolves.toBe(false);
      });

      test('re-declaring a collection with different unique indexes is refused', () => {
        store.collection(UNIQUE_SCREENS);
        expect(() => store.collection(UNIQUE_SCREENS)).not.toThrow();
        expect(() => store.collection({ name: UNIQUE_SCREENS.name })).toThrow();
      });
    });

    describe('tenant isolation', () => {
      test("another tenant's documents are invisible and untouchable", async () => {
        const col = screens();
        const mine = await col.insert(A, { name: 'mine', kind: 'screen', tags: ['t'] });
        expect(await col.findById(B, mine.id)).toBeNull();
        expect(await col.find(B)).toEqual([]);
        expect(await col.find(B, { name: 'mine' })).toEqual([]);
        expect(await col.find(B, { accountId: A })).toEqual([]);
        expect(await col.find(B, { $or: [{ accountId: A }, { name: 'mine' }] })).toEqual([]);
        expect(await col.count(B)).toBe(0);
        expect(await col.count(B, { tags: 't' })).toBe(0);
        expect(await col.update(B, mine.id, { $set: { name: 'stolen' } })).toBeNull();
        expect(await col.update(B, mine.id, { $set: { name: 'stolen' } }, { expectedVersion: 1 })).toBeNull();
        expect(await col.delete(B, mine.id)).toBe(false);
        expect(await col.delete(B, mine.id, { expectedVersion: 1 })).toBe(false);
        expect(await col.findById(A, mine.id)).toEqual(mine);
      });

      test('the same id may exist in two tenants independently', async () => {
        const col = screens();
        await col.insert(A, { id: 'same', name: 'in A', kind: 'screen' });
        await col.insert(B, { id: 'same', name: 'in B', kind: 'screen' });
        await col.update(B, 'same', { $set: { name: 'B changed' } });
        expect((await col.findById(A, 'same'))?.name).toBe('in A');
        expect((await col.findById(B, 'same'))?.name).toBe('B changed');
        expect(await col.delete(A, 'same')).toBe(true);
        expect((await col.findById(B, 'same'))?.name).toBe('B changed');
      });

      test('a filter on accountId cannot widen the scope', async () => {
        const col = await seed();
        expect(idSet(await col.find(A, { accountId: A }))).toEqual(['a', 'b', 'c', 'd', 'e']);
        expect(await col.count(A, { accountId: B })).toBe(0);
        expect(idSet(await col.find(B, { kind: { $in: ['screen', 'kiosk'] } }))).toEqual(['a', 'x']);
      });
    });

    describe('filters', () => {
      const cases: Array<[string, Record<string, unknown>, string[]]> = [
        ['implicit $eq', { kind: 'screen' }, ['a', 'b', 'd']],
        ['$eq', { kind: { $eq: 'kiosk' } }, ['c', 'e']],
        ['$ne', { kind: { $ne: 'screen' } }, ['c', 'e']],
        ['$ne matches missing fields', { size: { $ne: 55 } }, ['b', 'c', 'd', 'e']],
        ['$in', { size: { $in: [32, 10] } }, ['b', 'e']],
        ['$nin', { kind: { $nin: ['kiosk'] } }, ['a', 'b', 'd']],
        ['$gt', { size: { $gt: 21 } }, ['a', 'b']],
        ['$gte', { size: { $gte: 21 } }, ['a', 'b', 'c']],
        ['$lt', { size: { $lt: 21 } }, ['e']],
        ['$lte', { size: { $lte: 21 } }, ['c', 'e']],
        ['range', { size: { $gt: 10, $lt: 55 } }, ['b', 'c']],
        ['$regex', { name: { $regex: '^lobby' } }, ['b']],
        ['$regex with $options i', { name: { $regex: '^lobby', $options: 'i' } }, ['a', 'b']],
        ['RegExp value', { name: /^LOBBY/i }, ['a', 'b']],
        ['$and', { $and: [{ kind: 'screen' }, { size: { $gte: 40 } }] }, ['a']],
        ['$or', { $or: [{ kind: 'kiosk' }, { size: 55 }] }, ['a', 'c', 'e']],
        ['nested dotted field', { 'location.floor': 1 }, ['a', 'c']],
        ['nested dotted field with operator', { 'location.floor': { $gte: 2 } }, ['b', 'e']],
        ['array membership', { tags: 'hd' }, ['a', 'd']],
        ['array $in', { tags: { $in: ['lobby'] } }, ['a', 'b']],
        ['array $size', { tags: { $size: 0 } }, ['c']],
        ['$exists true', { 'location.room': { $exists: true } }, ['a', 'b', 'e']],
        ['$exists false', { size: { $exists: false } }, ['d']],
        ['null matches null and missing', { online: null }, ['d']],
        ['$exists true includes explicit null', { note: { $exists: true } }, ['d']],
        ['boolean', { online: false }, ['b', 'e']],
        ['empty filter', {}, ['a', 'b', 'c', 'd', 'e']],
        // Filters that pin ids (read by key in the embedded store): only this tenant's documents,
        // the rest of the filter still applies, unknown and non-string ids match nothing.
        ['id equality', { id: 'c' }, ['c']],
        ['id $eq', { id: { $eq: 'a' } }, ['a']],
        ['id $in, another tenant’s id and unknown ids ignored', { id: { $in: ['e', 'x', 'zz', 'a', 'a'] } }, ['a', 'e']],
        ['id $in with non-strings', { id: { $in: [1, null, 'b'] } }, ['b']],
        ['id $in and another condition', { id: { $in: ['a', 'b', 'c'] }, kind: 'screen' }, ['a', 'b']],
        ['id $in inside $and', { $and: [{ id: { $in: ['a', 'c', 'd'] } }, { size: { $gte: 21 } }] }, ['a', 'c']],
        ['id $in empty', { id: { $in: [] } }, []],
      ];
      test.each(cases)('%s', async (_label, filter, expected) => {
        const col = await seed();
        expect(idSet(await col.find(A, filter))).toEqual(expected);
        expect(await col.count(A, filter)).toBe(expected.length);
      });

      test('pinned ids: sorted, paged (skip, limit, after) like any other find', async () => {
        const col = await seed();
        const filter = { id: { $in: ['e', 'a', 'b', 'c'] } };
        expect((await col.find(A, filter, { sort: { size: -1 } })).map((d) => d.id)).toEqual(['a', 'b', 'c', 'e']);
        expect((await col.find(A, filter, { sort: { size: -1 }, skip: 1, limit: 2 })).map((d) => d.id)).toEqual(['b', 'c']);
        expect((await col.find(A, filter, { sort: { size: -1 }, after: [32, 'b'] })).map((d) => d.id)).toEqual(['c', 'e']);
      });

      test('count without filter counts only the tenant', async () => {
        const col = await seed();
        expect(await col.count(A)).toBe(5);
        expect(await col.count(B)).toBe(2);
        expect(await col.count('acct_nobody')).toBe(0);
      });
    });

    describe('sort, skip and limit', () => {
      test('without sort, documents come in id order', async () => {
        const col = await seed();
        expect(ids(await col.find(A))).toEqual(['a', 'b', 'c', 'd', 'e']);
      });

      test('numbers ascending and descending, missing fields lowest', async () => {
        const col = await seed();
        expect(ids(await col.find(A, {}, { sort: { size: 1 } }))).toEqual(['d', 'e', 'c', 'b', 'a']);
        expect(ids(await col.find(A, {}, { sort: { size: -1 } }))).toEqual(['a', 'b', 'c', 'e', 'd']);
      });

      test('multi-key with strings (binary order: upper case before lower case)', async () => {
        const col = await seed();
        expect(ids(await col.find(A, {}, { sort: { kind: 1, name: 1 } }))).toEqual(['e', 'c', 'd', 'a', 'b']);
        expect(ids(await col.find(A, {}, { sort: { kind: -1, size: 1 } }))).toEqual(['d', 'b', 'a', 'e', 'c']);
      });

      test('nested field, ties broken by id', async () => {
        const col = await seed();
        expect(ids(await col.find(A, {}, { sort: { 'location.floor': 1 } }))).toEqual(['d', 'a', 'c', 'b', 'e']);
        expect(ids(await col.find(A, {}, { sort: { 'location.floor': -1 } }))).toEqual(['e', 'b', 'a', 'c', 'd']);
      });

      test('id descending', async () => {
        const col = await seed();
        expect(ids(await col.find(A, { kind: 'screen' }, { sort: { id: -1 } }))).toEqual(['d', 'b', 'a']);
      });

      test('mixed types follow BSON order: null/missing < numbers < strings', async () => {
        const col = store.collection<{ v?: unknown }>({ name: 'mixed' });
        await col.insert(A, { id: 'm1', v: 'abc' });
        await col.insert(A, { id: 'm2', v: 10 });
        await col.insert(A, { id: 'm3' });
        await col.insert(A, { id: 'm4', v: 'B' });
        await col.insert(A, { id: 'm5', v: null });
        await col.insert(A, { id: 'm6', v: 3 });
        expect(ids(await col.find(A, {}, { sort: { v: 1 } }))).toEqual(['m3', 'm5', 'm6', 'm2', 'm4', 'm1']);
        expect(ids(await col.find(A, {}, { sort: { v: -1 } }))).toEqual(['m1', 'm4', 'm2', 'm6', 'm3', 'm5']);
      });

      test('skip and limit apply after filter and sort', async () => {
        const col = await seed();
        expect(ids(await col.find(A, {}, { sort: { size: -1 }, skip: 1, limit: 2 }))).toEqual(['b', 'c']);
        expect(ids(await col.find(A, { kind: 'screen' }, { skip: 1 }))).toEqual(['b', 'd']);
        expect(ids(await col.find(A, {}, { limit: 2 }))).toEqual(['a', 'b']);
        expect(ids(await col.find(A, {}, { skip: 10 }))).toEqual([]);
        expect(await col.find(A, {}, { limit: 0 })).toEqual([]);
      });

      test('paging with skip/limit visits every document exactly once', async () => {
        const col = screens();
        for (let i = 0; i < 23; i++) await col.insert(A, { id: `p${String(i).padStart(2, '0')}`, name: 'n', kind: i % 3 === 0 ? 'kiosk' : 'screen' });
        const seen: string[] = [];
        for (let skip = 0; skip < 30; skip += 5) seen.push(...ids(await col.find(A, {}, { sort: { kind: 1 }, skip, limit: 5 })));
        expect(seen).toHaveLength(23);
        expect(new Set(seen).size).toBe(23);
      });
    });

    describe('update', () => {
      test('$set (dotted) and $unset bump version and updatedAt', async () => {
        const col = screens();
        const saved = await col.insert(A, { id: 'u1', name: 'before', kind: 'screen', tags: ['t'], settings: { volume: 3 } });
        await new Promise((r) => setTimeout(r, 5));
        const updated = await col.update(A, 'u1', { $set: { name: 'after', 'settings.brightness': 80, 'location.floor': 4 }, $unset: ['tags'] });
        expect(updated).toMatchObject({ id: 'u1', accountId: A, name: 'after', version: 2, settings: { volume: 3, brightness: 80 }, location: { floor: 4 } });
        expect(updated).not.toHaveProperty('tags');
        expect(updated).not.toHaveProperty('_id');
        expect(updated?.createdAt).toBe(saved.createdAt);
        expect(updated!.updatedAt > saved.updatedAt).toBe(true);
        expect(await col.findById(A, 'u1')).toEqual(updated);
        const again = await col.update(A, 'u1', { $unset: ['settings.volume', 'not.there'] });
        expect(again?.version).toBe(3);
        expect(again?.settings).toEqual({ brightness: 80 });
      });

      test('unknown id gives null', async () => {
        await expect(screens().update(A, 'nope', { $set: { name: 'x' } })).resolves.toBeNull();
        await expect(screens().update(A, 'nope', { $set: { name: 'x' } }, { expectedVersion: 1 })).resolves.toBeNull();
      });

      test('store-owned fields cannot be updated', async () => {
        const col = screens();
        await col.insert(A, { id: 'm', name: 'n', kind: 'screen' });
        await expect(col.update(A, 'm', { $set: { version: 9 } })).rejects.toThrow();
        await expect(col.update(A, 'm', { $set: { accountId: B } })).rejects.toThrow();
        await expect(col.update(A, 'm', { $unset: ['id'] })).rejects.toThrow();
        expect((await col.findById(A, 'm'))?.version).toBe(1);
      });

      test('expectedVersion: a match applies, a mismatch is VERSION_CONFLICT and changes nothing', async () => {
        const col = screens();
        await col.insert(A, { id: 'v', name: 'v1', kind: 'screen' });
        const v2 = await col.update(A, 'v', { $set: { name: 'v2' } }, { expectedVersion: 1 });
        expect(v2?.version).toBe(2);
        await expectCode(col.update(A, 'v', { $set: { name: 'stale' } }, { expectedVersion: 1 }), 'VERSION_CONFLICT');
        const now = await col.findById(A, 'v');
        expect(now).toEqual(v2);
      });

      test('concurrent updates with the same expectedVersion: exactly one wins', async () => {
        const col = screens();
        await col.insert(A, { id: 'race', name: 'start', kind: 'screen' });
        const results = await Promise.allSettled(
          Array.from({ length: 6 }, (_, i) => col.update(A, 'race', { $set: { name: `w${i}` } }, { expectedVersion: 1 })),
        );
        const won = results.filter((r) => r.status === 'fulfilled');
        expect(won).toHaveLength(1);
        for (const r of results) if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('VERSION_CONFLICT');
        const final = await col.findById(A, 'race');
        expect(final?.version).toBe(2);
        expect(final?.name).toBe((won[0] as PromiseFulfilledResult<Stored<Screen> | null>).value?.name);
      });
    });

    describe('delete', () => {
      test('deletes once, then reports false', async () => {
        const col = screens();
        await col.insert(A, { id: 'del', name: 'n', kind: 'screen' });
        expect(await col.delete(A, 'del')).toBe(true);
        expect(await col.findById(A, 'del')).toBeNull();
        expect(await col.delete(A, 'del')).toBe(false);
        expect(await col.count(A)).toBe(0);
      });

      test('expectedVersion mismatch is VERSION_CONFLICT and keeps the document', async () => {
        const col = screens();
        await col.insert(A, { id: 'dv', name: 'n', kind: 'screen' });
        await col.update(A, 'dv', { $set: { name: 'm' } });
        await expectCode(col.delete(A, 'dv', { expectedVersion: 1 }), 'VERSION_CONFLICT');
        expect((await col.findById(A, 'dv'))?.version).toBe(2);
        expect(await col.delete(A, 'dv', { expectedVersion: 2 })).toBe(true);
        expect(await col.delete(A, 'dv', { expectedVersion: 2 })).toBe(false);
      });
    });

    describe('unique indexes', () => {
      test('tenant scope: same value in two tenants is fine, twice in one is DUPLICATE_KEY and writes nothing', async () => {
        const col = store.collection<Screen>(UNIQUE_SCREENS);
        await col.insert(A, { name: 'a', kind: 'screen', serial: 'S1' });
        await col.insert(B, { name: 'b', kind: 'screen', serial: 'S1' });
        const err = await expectCode(col.insert(A, { id: 'second', name: 'c', kind: 'screen', serial: 'S1' }), 'DUPLICATE_KEY');
        expect(err.details).toMatchObject({ index: 'serial' });
        expect(await col.count(A)).toBe(1);
        expect(await col.findById(A, 'second')).toBeNull();
        // the failed insert left no index entry behind
        await col.insert(A, { id: 'second', name: 'c', kind: 'screen', serial: 'S9' });
      });

      test('documents without the indexed field do not clash; explicit values do', async () => {
        const col = store.collection<Screen>(UNIQUE_SCREENS);
        await col.insert(A, { name: 'no serial 1', kind: 'screen' });
        await col.insert(A, { name: 'no serial 2', kind: 'screen' });
        expect(await col.count(A)).toBe(2);
      });

      test('compound index on nested fields', async () => {
        const col = store.collection<Screen>(UNIQUE_SCREENS);
        await col.insert(A, { name: '1', kind: 'screen', location: { floor: 1, slot: 'x' } });
        await col.insert(A, { name: '2', kind: 'screen', location: { floor: 1, slot: 'y' } });
        await col.insert(A, { name: '3', kind: 'screen', location: { floor: 2, slot: 'x' } });
        await expectCode(col.insert(A, { name: '4', kind: 'screen', location: { floor: 1, slot: 'x' } }), 'DUPLICATE_KEY');
        expect(await col.count(A)).toBe(3);
      });

      test('an update that would violate the index is rejected and changes nothing', async () => {
        const col = store.collection<Screen>(UNIQUE_SCREENS);
        await col.insert(A, { id: 'one', name: 'one', kind: 'screen', serial: 'S1' });
        const two = await col.insert(A, { id: 'two', name: 'two', kind: 'screen', serial: 'S2' });
        await expectCode(col.update(A, 'two', { $set: { serial: 'S1', name: 'changed' } }), 'DUPLICATE_KEY');
        expect(await col.findById(A, 'two')).toEqual(two);
        // updating a document to its own value is not a clash
        expect((await col.update(A, 'two', { $set: { serial: 'S2' } }))?.version).toBe(2);
      });

      test('update and delete free the old value', async () => {
        const col = store.collection<Screen>(UNIQUE_SCREENS);
        await col.insert(A, { id: 'one', name: 'one', kind: 'screen', serial: 'S1' });
        await col.update(A, 'one', { $set: { serial: 'S3' } });
        await col.insert(A, { id: 'two', name: 'two', kind: 'screen', serial: 'S1' });
        await expectCode(col.insert(A, { name: 'x', kind: 'screen', serial: 'S3' }), 'DUPLICATE_KEY');
        await col.update(A, 'two', { $unset: ['serial'] });
        await col.insert(A, { id: 'three', name: 'three', kind: 'screen', serial: 'S1' });
        expect(await col.delete(A, 'one')).toBe(true);
        await col.insert(A, { id: 'four', name: 'four', kind: 'screen', serial: 'S3' });
        expect(idSet(await col.find(A, { serial: { $exists: true } }))).toEqual(['four', 'three']);
      });

      test('global scope: unique across tenants and found by findByUnique', async () => {
        const col = store.collection<Device>(DEVICES);
        const dev = await col.insert(A, { label: 'lobby', registrationKey: 'K1' });
        await expectCode(col.insert(B, { label: 'other', registrationKey: 'K1' }), 'DUPLICATE_KEY');
        expect(await col.count(B)).toBe(0);
        // the tenant-scoped label index still allows the same label elsewhere
        await col.insert(B, { label: 'lobby', registrationKey: 'K2' });
        expect(await col.findByUnique('registrationKey', ['K1'])).toEqual(dev);
        expect((await col.findByUnique('registrationKey', ['K2']))?.accountId).toBe(B);
        expect(await col.findByUnique('registrationKey', ['nope'])).toBeNull();
        await col.update(A, dev.id, { $set: { registrationKey: 'K3' } });
        expect(await col.findByUnique('registrationKey', ['K1'])).toBeNull();
        expect((await col.findByUnique('registrationKey', ['K3']))?.id).toBe(dev.id);
        await col.delete(A, dev.id);
        expect(await col.findByUnique('registrationKey', ['K3'])).toBeNull();
      });

      test('findByUnique refuses tenant-scoped and unknown indexes', async () => {
        const col = store.collection<Device>(DEVICES);
        await col.insert(A, { label: 'lobby', registrationKey: 'K1' });
        await expect(col.findByUnique('label', ['lobby'])).rejects.toThrow();
        await expect(col.findByUnique('nope', ['lobby'])).rejects.toThrow();
        await expect(col.findByUnique('registrationKey', [])).rejects.toThrow();
      });

      test('concurrent inserts of the same unique value: exactly one wins', async () => {
        const col = store.collection<Screen>(UNIQUE_SCREENS);
        const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => col.insert(A, { name: `n${i}`, kind: 'screen', serial: 'RACE' })));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results) if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('DUPLICATE_KEY');
        expect(await col.count(A, { serial: 'RACE' })).toBe(1);
      });

      test('concurrent inserts of the same id: exactly one wins', async () => {
        const col = screens();
        const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => col.insert(A, { id: 'same', name: `n${i}`, kind: 'screen' })));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect(await col.count(A)).toBe(1);
      });
    });

    describe('secondary indexes, keyset paging, insertMany and deleteMany', () => {
      interface Cell {
        table: string;
        rank?: number | null;
        label?: string;
        other?: unknown;
      }
      const CELLS: CollectionSpec = {
        name: 'cells',
        indexes: [
          { name: 'byRank', fields: ['table', 'rank'] },
          { name: 'byTable', fields: ['table'] },
        ],
      };
      const PLAIN: CollectionSpec = { name: 'cells_plain' };
      const long = (c: string) => c.repeat(150);

      // The same data in an indexed and an unindexed collection must answer identically.
      async function both(): Promise<[Collection<Cell>, Collection<Cell>]> {
        const docs: Array<Cell & { id: string }> = [];
        const ranks = [3, 1, null, 2, 2, -5, 10, 1.5, null, 7];
        for (let i = 0; i < 40; i++) {
          const r = ranks[i % ranks.length];
          docs.push({
            id: `d${String(i).padStart(2, '0')}`,
            table: i % 3 === 0 ? 't2' : 't1',
            ...(r === null && i % 2 ? {} : { rank: r ?? null }),
            label: i % 7 === 0 ? long(String.fromCharCode(97 + (i % 3))) + String(i) : `l${i % 4}`,
          });
        }
        const indexed = store.collection<Cell>(CELLS);
        const plain = store.collection<Cell>(PLAIN);
        expect(await indexed.insertMany(A, docs)).toHaveLength(docs.length);
        await plain.insertMany(A, docs);
        await indexed.insertMany(B, [{ id: 'b1', table: 't1', rank: 1 }]);
        return [indexed, plain];
      }

      test('find over an index equals find over a scan, for every sort, filter and page', async () => {
        const [indexed, plain] = await both();
        const cases: Array<[Record<string, unknown>, Record<string, 1 | -1>]> = [
          [{ table: 't1' }, { rank: 1, id: 1 }],
          [{ table: 't1' }, { rank: -1, id: -1 }],
          [{ table: 't1' }, { rank: -1 }],
          [
            { table: 't1', label: 'l1' },
            { rank: 1, id: 1 },
          ],
          [{ table: 't1' }, { label: 1, id: 1 }],
          [{ table: 't2', rank: 2 }, { id: 1 }],
          [
            { table: 't1', rank: { $gte: 2 } },
            { rank: 1, id: 1 },
          ],
          // Numeric ranges on the sorted field, both directions (the embedded store seeks to them).
          [
            { table: 't1', rank: { $gte: 1, $lt: 7 } },
            { rank: 1, id: 1 },
          ],
          [
            { table: 't1', rank: { $gt: 1.5, $lte: 10 } },
            { rank: -1, id: -1 },
          ],
          [
            { table: 't1', rank: { $lte: 2 } },
            { rank: -1, id: -1 },
          ],
          [
            { table: 't1', rank: { $lt: 3 } },
            { rank: 1, id: 1 },
          ],
          [
            { table: 't1', rank: { $gt: 3 } },
            { rank: -1, id: -1 },
          ],
          [
            { table: 't1', rank: { $gte: 2, $lte: 2 } },
            { rank: 1, id: 1 },
          ],
          [
            { table: 't1', rank: { $gt: -100, $ne: 2 } },
            { rank: -1, id: -1 },
          ],
          [
            { table: 't1', rank: { $gt: 100 } },
            { rank: 1, id: 1 },
          ],
          [{}, { rank: 1, id: 1 }],
        ];
        for (const [filter, sort] of cases) {
          const want = await plain.find(A, filter, { sort });
          expect(ids(await indexed.find(A, filter, { sort }))).toEqual(ids(want));
          expect(await indexed.count(A, filter)).toBe(want.length);
          // Keyset pages of 3 visit the same sequence.
          const keys = [...Object.keys(sort), ...(Object.keys(sort).includes('id') ? [] : ['id'])];
          for (const col of [indexed, plain]) expect(await walkPages(col, filter, sort, 3, keys)).toEqual(ids(want));
        }
      });

      test('index entries follow updates and deletes; deleteMany removes matches only', async () => {
        const [indexed] = await both();
        await indexed.update(A, 'd01', { $set: { rank: 100 } });
        await indexed.update(A, 'd02', { $set: { table: 't9' } });
        await indexed.delete(A, 'd04');
        const top = await indexed.find(A, { table: 't1' }, { sort: { rank: -1, id: -1 }, limit: 1 });
        expect(ids(top)).toEqual(['d01']);
        expect(ids(await indexed.find(A, { table: 't9' }, { sort: { rank: 1, id: 1 } }))).toEqual(['d02']);
        const t1 = await indexed.count(A, { table: 't1' });
        expect(await indexed.deleteMany(A, { table: 't1', label: 'l1' })).toBeGreaterThan(0);
        expect(await indexed.count(A, { table: 't1', label: 'l1' })).toBe(0);
        expect(await indexed.count(A, { table: 't1' })).toBeLessThan(t1);
        const left = await indexed.count(A, { table: 't1' });
        expect(await indexed.deleteMany(A, { table: 't1' })).toBe(left);
        expect(await indexed.count(A, { table: 't1' })).toBe(0);
        expect(await indexed.count(B, { table: 't1' })).toBe(1);
        expect(ids(await indexed.find(A, { table: 't1' }, { sort: { rank: 1, id: 1 } }))).toEqual([]);
      });

      test('a sparse index leaves out documents missing its last field, and is walked only when the filter requires it', async () => {
        const col = store.collection<Cell>({ name: 'cells_sparse', indexes: [{ name: 'r', fields: ['table', 'rank'], sparse: true }] });
        await col.insertMany(A, [
          { id: 'a', table: 't', rank: 2 },
          { id: 'b', table: 't' },
          { id: 'c', table: 't', rank: null },
          { id: 'd', table: 't', rank: 1 },
        ]);
        expect(ids(await col.find(A, { table: 't' }, { sort: { rank: 1, id: 1 } }))).toEqual(['b', 'c', 'd', 'a']);
        expect(ids(await col.find(A, { table: 't', rank: { $exists: true } }, { sort: { rank: 1, id: 1 } }))).toEqual(['c', 'd', 'a']);
        expect(ids(await col.find(A, { table: 't', rank: { $exists: true } }, { sort: { rank: -1, id: -1 }, after: [2, 'a'] }))).toEqual(['d', 'c']);
      });

      test('a numeric range on the sorted field skips nulls, strings and booleans, in both directions and across pages', async () => {
        const spec = (name: string): CollectionSpec => ({ name, indexes: [{ name: 'r', fields: ['table', 'rank'] }] });
        const docs = [1, 'x', null, 5, true, 3, 'a', 2, false, 4, null, 9].map((rank, i) => ({
          id: `m${String(i).padStart(2, '0')}`,
          table: 't',
          rank: rank as never,
        }));
        const indexed = store.collection<Cell>(spec('cells_mixed'));
        const plain = store.collection<Cell>({ name: 'cells_mixed_plain' });
        await indexed.insertMany(A, docs);
        await plain.insertMany(A, docs);
        for (const [range, dir] of [
          [{ $gte: 2 }, 1],
          [{ $gte: 2 }, -1],
          [{ $lt: 5 }, 1],
          [{ $lt: 5 }, -1],
          [{ $gt: 1, $lte: 4 }, 1],
          [{ $gt: 1, $lte: 4 }, -1],
        ] as const) {
          const filter = { table: 't', rank: range };
          const sort = { rank: dir, id: dir } as Record<string, 1 | -1>;
          const want = ids(await plain.find(A, filter, { sort }));
          expect(ids(await indexed.find(A, filter, { sort }))).toEqual(want);
          // Pages of 2, and pages starting from positions outside the range (a null, a string).
          expect(await walkPages(indexed, filter, sort, 2, ['rank', 'id'])).toEqual(want);
          for (const from of [
            [null, 'm02'],
            ['x', 'm01'],
            [true, 'm04'],
          ]) {
            expect(ids(await indexed.find(A, filter, { sort, after: from }))).toEqual(ids(await plain.find(A, filter, { sort, after: from })));
          }
        }
      });

      test('an indexed field holding an object or array is refused', async () => {
        const col = store.collection<Cell>(CELLS);
        await expect(col.insert(A, { table: 't', rank: [1, 2] as unknown as number })).rejects.toThrow(/scalar/);
        await expect(col.insertMany(A, [{ table: 't', rank: 1 }, { table: { x: 1 } as unknown as string }])).rejects.toThrow(/scalar/);
        const ok = await col.insert(A, { table: 't', rank: 1 });
        await expect(col.update(A, ok.id, { $set: { rank: { deep: 1 } } })).rejects.toThrow(/scalar/);
        expect((await col.findById(A, ok.id))?.rank).toBe(1);
        expect(await col.count(A)).toBe(1);
      });

      test('insertMany stops at a duplicate and keeps the documents before it', async () => {
        const col = store.collection<Cell>(CELLS);
        await col.insert(A, { id: 'dup', table: 't' });
        await expectCode(
          col.insertMany(A, [
            { id: 'm1', table: 't' },
            { id: 'dup', table: 't' },
            { id: 'm3', table: 't' },
          ]),
          'DUPLICATE_KEY',
        );
        expect(await col.findById(A, 'm3')).toBeNull();
        expect(await col.count(A, { table: 't' })).toBeLessThanOrEqual(2);
      });

      test('updateMany applies each update once, in this tenant only, and keeps the indexes in step', async () => {
        const col = store.collection<Cell>(CELLS);
        await col.insertMany(A, [
          { id: 'u1', table: 't', rank: 1 },
          { id: 'u2', table: 't', rank: 2, label: 'x' },
        ]);
        await col.insert(B, { id: 'u3', table: 't', rank: 3 });
        const out = await col.updateMany(A, [
          { id: 'u1', update: { $set: { rank: 10, label: 'one' } } },
          { id: 'u3', update: { $set: { rank: 99 } } },
          { id: 'missing', update: { $set: { rank: 1 } } },
          { id: 'u2', update: { $set: { table: 's' }, $unset: ['label'] } },
        ]);
        expect(out.map((d) => d && { id: d.id, version: d.version, rank: d.rank, table: d.table, label: d.label })).toEqual([
          { id: 'u1', version: 2, rank: 10, table: 't', label: 'one' },
          null,
          null,
          { id: 'u2', version: 2, rank: 2, table: 's', label: undefined },
        ]);
        expect(await col.findById(B, 'u3')).toMatchObject({ rank: 3, version: 1 });
        expect(ids(await col.find(A, { table: 't' }, { sort: { rank: 1 } }))).toEqual(['u1']);
        expect(ids(await col.find(A, { table: 's' }, { sort: { rank: 1 } }))).toEqual(['u2']);
        expect(await col.updateMany(A, [])).toEqual([]);
      });

      test('updates of unindexed fields keep every index entry; later updates of indexed fields still move them', async () => {
        const col = store.collection<Cell & { key?: string; place?: { city?: string; zip?: string } }>({
          name: 'cells_keyed',
          uniqueIndexes: [{ name: 'key', fields: ['key'], scope: 'global' }],
          indexes: [{ name: 'byCity', fields: ['place.city', 'rank'] }],
        });
        await col.insertMany(A, [
          { id: 'k1', table: 't', rank: 1, key: 'KX1', place: { city: 'Oslo', zip: '1' } },
          { id: 'k2', table: 't', rank: 2, key: 'KX2', place: { city: 'Oslo' } },
        ]);
        // Unindexed fields only (label, other; place.zip shares its top-level field with the index).
        await col.update(A, 'k1', { $set: { label: 'one', 'place.zip': '2' }, $unset: ['other'] });
        await col.updateMany(A, [
          { id: 'k1', update: { $set: { other: { deep: true } } } },
          { id: 'k2', update: { $set: { label: 'two' } } },
        ]);
        expect(await col.findByUnique('key', ['KX1'])).toMatchObject({ id: 'k1', version: 3, label: 'one', place: { city: 'Oslo', zip: '2' } });
        expect(ids(await col.find(A, { 'place.city': 'Oslo' }, { sort: { rank: 1 } }))).toEqual(['k1', 'k2']);
        await col.updateMany(A, [
          { id: 'k1', update: { $set: { key: 'KX9', 'place.city': 'Bergen' } } },
          { id: 'k2', update: { $unset: ['place'] } },
        ]);
        expect(await col.findByUnique('key', ['KX1'])).toBeNull();
        expect((await col.findByUnique('key', ['KX9']))?.id).toBe('k1');
        expect(ids(await col.find(A, { 'place.city': 'Oslo' }, { sort: { rank: 1 } }))).toEqual([]);
        expect(ids(await col.find(A, { 'place.city': 'Bergen' }, { sort: { rank: 1 } }))).toEqual(['k1']);
        await expectCode(col.insert(B, { table: 't', key: 'KX9' }), 'DUPLICATE_KEY');
      });

      test('updateMany stops at a unique-key clash; the updates after it are not applied', async () => {
        const col = store.collection<Device>(DEVICES);
        await col.insertMany(A, [
          { id: 'd1', label: 'a', registrationKey: 'UK1' },
          { id: 'd2', label: 'b', registrationKey: 'UK2' },
          { id: 'd3', label: 'c', registrationKey: 'UK3' },
        ]);
        await expectCode(
          col.updateMany(A, [
            { id: 'd1', update: { $set: { label: 'a2' } } },
            { id: 'd2', update: { $set: { registrationKey: 'UK3' } } },
            { id: 'd3', update: { $set: { label: 'c2' } } },
          ]),
          'DUPLICATE_KEY',
        );
        expect((await col.findById(A, 'd2'))?.registrationKey).toBe('UK2');
        expect((await col.findById(A, 'd3'))?.label).toBe('c');
      });

      test('indexes declared later are built from stored documents', async () => {
        if (!subject.reopen) return;
        const before = store.collection<Cell>({ name: 'later_idx' });
        await before.insertMany(A, [
          { id: 'a', table: 'x', rank: 2 },
          { id: 'b', table: 'x', rank: 1 },
          { id: 'c', table: 'y', rank: 0 },
        ]);
        store = await subject.reopen();
        const after = store.collection<Cell>({ name: 'later_idx', indexes: [{ name: 'r', fields: ['table', 'rank'] }] });
        expect(ids(await after.find(A, { table: 'x' }, { sort: { rank: 1, id: 1 } }))).toEqual(['b', 'a']);
        expect(await after.count(A, { table: 'x' })).toBe(2);
      });
    });

    describe('durability', () => {
      test('data, versions and unique indexes survive close and reopen', async () => {
        if (!subject.reopen) return;
        const col = store.collection<Device>(DEVICES);
        const kept = await col.insert(A, { id: 'kept', label: 'kept', registrationKey: 'R1' });
        await col.insert(A, { id: 'gone', label: 'gone', registrationKey: 'R2' });
        const changed = await col.update(A, 'kept', { $set: { label: 'kept2' } });
        await col.delete(A, 'gone');
        store = await subject.reopen();
        const again = store.collection<Device>(DEVICES);
        expect(await again.findById(A, 'kept')).toEqual(changed);
        expect(changed?.version).toBe(kept.version + 1);
        expect(await again.findById(A, 'gone')).toBeNull();
        expect((await again.findByUnique('registrationKey', ['R1']))?.id).toBe('kept');
        await expectCode(again.insert(B, { label: 'x', registrationKey: 'R1' }), 'DUPLICATE_KEY');
        await again.insert(B, { label: 'x', registrationKey: 'R2' });
        expect(await again.count(A)).toBe(1);
      });

      test('a unique index added later covers documents stored before it', async () => {
        if (!subject.reopen) return;
        const plain = store.collection<Screen>({ name: 'later' });
        await plain.insert(A, { id: 'p1', name: 'n', kind: 'screen', serial: 'L1' });
        await plain.insert(A, { id: 'p2', name: 'n', kind: 'screen', serial: 'L2' });
        store = await subject.reopen();
        const indexed = store.collection<Screen>({ name: 'later', uniqueIndexes: [{ name: 'serial', fields: ['serial'] }] });
        await expectCode(indexed.insert(A, { name: 'n', kind: 'screen', serial: 'L1' }), 'DUPLICATE_KEY');
        await indexed.insert(B, { name: 'n', kind: 'screen', serial: 'L1' });
        expect(await indexed.count(A)).toBe(2);
      });
    });

    describe('deployments: index changes, failed builds, hostile keys', () => {
      const SERIALS = (index: string): CollectionSpec => ({ name: 'deploy', uniqueIndexes: [{ name: index, fields: ['serial'] }] });

      test('an index renamed with the same keys keeps working, across restarts', async () => {
        if (!subject.reopen) return;
        await store.collection<Screen>(SERIALS('serial')).insert(A, { id: 's1', name: 'n', kind: 'screen', serial: 'S1' });
        store = await subject.reopen();
        const renamed = store.collection<Screen>(SERIALS('serialNo'));
        const dup = await expectCode(renamed.insert(A, { name: 'n', kind: 'screen', serial: 'S1' }), 'DUPLICATE_KEY');
        expect(dup.details).toMatchObject({ index: 'serialNo' });
        await renamed.insert(A, { id: 's2', name: 'n', kind: 'screen', serial: 'S2' });
        store = await subject.reopen();
        const again = store.collection<Screen>(SERIALS('serialNo'));
        expect(idSet(await again.find(A))).toEqual(['s1', 's2']);
        await expectCode(again.insert(A, { name: 'n', kind: 'screen', serial: 'S2' }), 'DUPLICATE_KEY');
      });

      test('a unique-index build that failed is retried by the next call, not cached until restart', async () => {
        if (!subject.twin) return;
        const plain = store.collection<Screen>({ name: 'retry' });
        await plain.insert(A, { id: 'r1', name: 'n', kind: 'screen', serial: 'R' });
        await plain.insert(A, { id: 'r2', name: 'n', kind: 'screen', serial: 'R' });
        const twin = await subject.twin();
        try {
          const indexed = twin.collection<Screen>({ name: 'retry', uniqueIndexes: [{ name: 'serial', fields: ['serial'] }] });
          await expect(indexed.find(A)).rejects.toThrow(/cannot build/);
          await plain.update(A, 'r2', { $set: { serial: 'R2' } });
          expect(idSet(await indexed.find(A))).toEqual(['r1', 'r2']);
          await expectCode(indexed.insert(A, { name: 'n', kind: 'screen', serial: 'R' }), 'DUPLICATE_KEY');
        } finally {
          await twin.close();
        }
      });

      replicated('replicas of two versions keep each other’s indexes during a rolling deploy', async () => {
        const twin = await subject.twin!();
        try {
          const V1: CollectionSpec = { name: 'rolling', uniqueIndexes: [{ name: 'serial', fields: ['serial'] }] };
          const V2: CollectionSpec = {
            name: 'rolling',
            uniqueIndexes: [
              { name: 'serial', fields: ['serial'] },
              { name: 'code', fields: ['code'] },
            ],
          };
          const next = twin.collection<Screen & { code?: string }>(V2);
          await next.insert(A, { id: 'n1', name: 'n', kind: 'screen', serial: 'N1', code: 'C1' });
          // An old replica (re)starts after the new one created its index.
          store = await subject.reopen!();
          const old = store.collection<Screen>(V1);
          await old.insert(A, { id: 'o1', name: 'n', kind: 'screen', serial: 'O1' });
          await expectCode(next.insert(A, { name: 'n', kind: 'screen', serial: 'N2', code: 'C1' }), 'DUPLICATE_KEY');
          await expectCode(old.insert(A, { name: 'n', kind: 'screen', serial: 'N1' }), 'DUPLICATE_KEY');
        } finally {
          await twin.close();
        }
      });

      test("a '__proto__' key is refused as bad input at any depth and never replaces a prototype", async () => {
        const col = store.collection<Screen>(SCREENS);
        const nested = JSON.parse('{"name":"n","kind":"screen","settings":{"__proto__":{"polluted":true}}}') as Screen;
        const top = JSON.parse('{"name":"n","kind":"screen","__proto__":{"polluted":true}}') as Screen;
        const err = await expectCode(col.insert(A, nested), 'BAD_USER_INPUT');
        expect(err.details).toEqual({ field: 'settings.__proto__' });
        await expectCode(col.insert(A, top), 'BAD_USER_INPUT');
        await expectCode(col.insertMany(A, [{ name: 'ok', kind: 'screen' }, nested]), 'BAD_USER_INPUT');
        const kept = await col.insert(A, { id: 'k', name: 'n', kind: 'screen', settings: { a: 1 } });
        await expectCode(
          col.update(A, 'k', { $set: { settings: JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown> } }),
          'BAD_USER_INPUT',
        );
        await expectCode(col.update(A, 'k', { $set: { 'settings.__proto__': { polluted: true } } }), 'BAD_USER_INPUT');
        expect(await col.count(A)).toBe(1);
        const back = await col.findById(A, 'k');
        expect(back).toEqual(kept);
        expect(Object.getPrototypeOf(back!.settings)).toBe(Object.prototype);
        expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
      });
    });
  });
}
