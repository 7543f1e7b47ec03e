/**
 * The group-tree rules every grouped resource shares (kit group-rules.ts over the embedded
 * documents store): where/order on the listing with known answers, refusals naming the field,
 * depth and cycle rules, delete moving members up, and accounts never seeing each other's groups.
 */
import { createScratchLmdbStore } from '../../src/lmdb/documents.lmdb.js';
import {
  AppError,
  createGroup,
  deleteGroup,
  GroupTreeRepository,
  listGroupViews,
  updateGroup,
  type DocumentStore,
  type GroupMember,
  type GroupRecord,
} from '@pylon/kit';
import { testPrincipal } from '@pylon/kit/testing';

let store: DocumentStore;
let tree: GroupTreeRepository<GroupMember & { name: string }>;
const A = testPrincipal('acc-a');
const B = testPrincipal('acc-b');
const ids: Record<string, string> = {};

beforeEach(async () => {
  store = await createScratchLmdbStore('pylon-groups-');
  const members = store.collection<GroupMember & { name: string }>({ name: 'group_test_members' });
  tree = new GroupTreeRepository(store.collection<GroupRecord>({ name: 'group_test_groups' }), members, 'widget');
  // acc-a: Stores > (Europe > Paris, Americas), Lobby; members: 2 in Europe, 1 in Lobby.
  ids.stores = (await createGroup(tree, A, { name: 'Stores' })).id;
  ids.europe = (await createGroup(tree, A, { name: 'Europe', parentId: ids.stores })).id;
  ids.paris = (await createGroup(tree, A, { name: 'Paris', parentId: ids.europe })).id;
  ids.americas = (await createGroup(tree, A, { name: 'Americas', parentId: ids.stores })).id;
  ids.lobby = (await createGroup(tree, A, { name: 'Lobby' })).id;
  ids.other = (await createGroup(tree, B, { name: 'Europe B' })).id;
  for (const [name, g] of [
    ['w1', 'europe'],
    ['w2', 'europe'],
    ['w3', 'lobby'],
  ] as const)
    await members.insert('acc-a', { name, groupId: ids[g]!, groupName: g });
});
afterEach(() => store.close());

const names = (views: { name: string }[]) => views.map((v) => v.name);
/** A's whole tree as listed, each group as [name, level, count]. */
const outline = async () => (await listGroupViews(tree, A)).map((v) => [v.name, v.level, v.count]);
const refusal = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return { code: (e as AppError).code, field: (e as AppError).details?.field, message: (e as AppError).message };
};

describe('listGroupViews', () => {
  test('without where/order: depth-first by name, with counts and levels (unchanged)', async () => {
    expect(await outline()).toEqual([
      ['Lobby', 0, 1],
      ['Stores', 0, 0],
      ['Americas', 1, 0],
      ['Europe', 1, 2],
      ['Paris', 2, 0],
    ]);
  });

  test('where filters on name and parentId; order sorts; levels stay those of the whole tree', async () => {
    const startsE = await listGroupViews(tree, A, { where: { name: { startsWith: 'E' } } });
    expect(startsE.map((v) => [v.name, v.level, v.count])).toEqual([['Europe', 1, 2]]);

    const underStores = await listGroupViews(tree, A, { where: { parentId: { eq: ids.stores } }, order: [{ name: 'DESC' }] });
    expect(names(underStores)).toEqual(['Europe', 'Americas']);

    const byNameDesc = await listGroupViews(tree, A, { order: [{ name: 'DESC' }] });
    expect(names(byNameDesc)).toEqual(['Stores', 'Paris', 'Lobby', 'Europe', 'Americas']);

    const either = await listGroupViews(tree, A, { where: { or: [{ name: { eq: 'Paris' } }, { name: { eq: 'Lobby' } }] } });
    expect(either.map((v) => [v.name, v.level])).toEqual([
      ['Lobby', 0],
      ['Paris', 2],
    ]);
  });

  test('as a tree: the matching groups, a match whose parent does not match at the top', async () => {
    const t = await listGroupViews(tree, A, { tree: true, where: { name: { nin: ['Stores', 'Lobby'] } }, order: [{ name: 'DESC' }] });
    expect(t.map((v) => [v.name, v.level, names(v.children)])).toEqual([
      ['Europe', 1, ['Paris']],
      ['Americas', 1, []],
    ]);
  });

  test('a field that is not filterable or sortable is refused, naming it', async () => {
    expect(await refusal(listGroupViews(tree, A, { where: { count: { eq: 2 } } }))).toMatchObject({ code: 'BAD_USER_INPUT', field: 'where.count' });
    expect(await refusal(listGroupViews(tree, A, { order: [{ level: 'ASC' }] }))).toMatchObject({ code: 'BAD_USER_INPUT', field: 'order.level' });
    expect(await refusal(listGroupViews(tree, A, { where: { name: { gt: 'x' } } }))).toMatchObject({ field: 'where.name' });
  });

  test("an account never sees another account's groups, whatever the filter", async () => {
    expect(names(await listGroupViews(tree, B))).toEqual(['Europe B']);
    expect(await listGroupViews(tree, B, { where: { id: { eq: ids.europe } } })).toEqual([]);
    expect(names(await listGroupViews(tree, A, { where: { name: { contains: 'Europe' } } }))).toEqual(['Europe']);
  });
});

describe('create, update, delete', () => {
  test('refuses a foreign parent, a cycle and more than ten levels, naming parentId', async () => {
    expect(await refusal(createGroup(tree, B, { name: 'x', parentId: ids.stores }))).toMatchObject({ code: 'BAD_USER_INPUT', field: 'parentId' });
    expect(await refusal(updateGroup(tree, A, ids.stores!, { name: 'Stores', parentId: ids.paris }))).toMatchObject({ field: 'parentId' });
    let parent = ids.paris!; // level 2
    for (let level = 3; level < 10; level++) parent = (await createGroup(tree, A, { name: `L${level}`, parentId: parent })).id;
    expect(await refusal(createGroup(tree, A, { name: 'too deep', parentId: parent }))).toMatchObject({ field: 'parentId' });
  });

  test("another account's group reads as not found", async () => {
    expect(await refusal(updateGroup(tree, B, ids.stores!, { name: 'mine' }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await refusal(deleteGroup(tree, B, ids.stores!))).toMatchObject({ code: 'NOT_FOUND' });
  });

  test('rename copies the name; delete moves members and sub-groups up', async () => {
    expect(await updateGroup(tree, A, ids.europe!, { name: 'EU' })).toMatchObject({ name: 'EU', level: 1, count: 2 });
    expect(await deleteGroup(tree, A, ids.europe!)).toEqual({ groupId: ids.europe, movedItems: 2, movedGroups: 1 });
    expect(await outline()).toEqual([
      ['Lobby', 0, 1],
      ['Stores', 0, 2],
      ['Americas', 1, 0],
      ['Paris', 1, 0],
    ]);
  });
});
