/**
 * Fleet-wide bulk through the subgraph: 10,000 devices tagged in one job (progress, per-device
 * results, the time it took), the dry run's count, another account's ids reported and untouched,
 * policies per action, and a job cut short by a restart resuming from its results.
 */
import { FINISHED, JobRunner, type Job, type Principal } from '@pylon/kit';
import { subgraphRunner } from '@pylon/kit/testing';
import { DEVICES } from '../../../domain/collections.js';
import { newDeviceRecord, type DeviceRecord } from '../../../domain/device.js';
import type { DevicesSubgraph } from '../../../app.js';
import { principal, startFixture, tokens, type Fixture } from '../../../../test/fixtures/subgraph.js';

const FLEET = 10_000;
let f: Fixture;
let runner: JobRunner;
let sg: DevicesSubgraph;
let run: ReturnType<typeof subgraphRunner>;

const device = (id: string, extra: Partial<DeviceRecord> = {}): DeviceRecord & { id: string } => ({
  id,
  ...newDeviceRecord(`Screen ${id}`, `rk-${id}`, extra),
});

beforeAll(async () => {
  f = await startFixture();
  runner = new JobRunner(f.store, { maxPerAccount: 5, workers: 1 });
  sg = f.replica({ jobs: runner });
  run = subgraphRunner(() => sg, principal('acc-a'), tokens);
  // Setup through the store directly: the fleet, half of it tagged `north`; another account's screens.
  const devices = f.store.collection<DeviceRecord>(DEVICES);
  const fleet = Array.from({ length: FLEET }, (_, i) => device(`d${String(i).padStart(5, '0')}`, { tags: i % 2 ? ['north'] : [] }));
  await devices.insertMany('acc-a', fleet);
  await devices.insertMany('acc-b', [device('b1', { tags: ['north'] }), device('b2')]);
});
afterAll(async () => {
  await runner.close();
  await f.close();
});

const START = `mutation($input: DeviceBulkJobInput!) {
  startDeviceBulkJob(input: $input) { success error errorCode errorField jobId link dryRun { targets notFound notFoundSample sample { id tags } } }
}`;
const RESULTS = `query($jobId: ID!, $state: DeviceBulkResultState, $limit: Int, $offset: Int) {
  deviceBulkJobResults(jobId: $jobId, state: $state, limit: $limit, offset: $offset) { deviceId state error errorCode }
}`;

async function start(input: Record<string, unknown>, who?: Principal) {
  const r = await run(START, { input }, who);
  expect(r.errors).toBeUndefined();
  return r.data!.startDeviceBulkJob as { success: boolean; error: string | null; errorCode: string | null; jobId: string | null; dryRun: any };
}

/** Waits (at most 60 s, polling the store) for the job to finish; no fixed sleep decides anything. */
async function finished(id: string, r: JobRunner = runner): Promise<Job> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = await r.get('acc-a', id);
    if (FINISHED.has(job.state)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.state} after 60 s`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

const tagCount = async (tag: string) => (await run(`query($t: [String!]) { deviceCount(tag: $t) }`, { t: [tag] })).data!.deviceCount as number;

test('a dry run counts and samples the targets and changes nothing', async () => {
  const byTag = await start({ selector: { tags: ['north'] }, action: 'ADD_TAGS', tags: ['x'], dryRun: true });
  expect(byTag).toMatchObject({ success: true, jobId: null, dryRun: { targets: FLEET / 2, notFound: 0 } });
  expect(byTag.dryRun.sample).toHaveLength(10);
  const byIds = await start({ selector: { ids: ['d00001', 'b1', 'nope', 'd00002'] }, action: 'REMOVE_TAGS', tags: ['north'], dryRun: true });
  expect(byIds.dryRun).toMatchObject({ targets: 2, notFound: 2, notFoundSample: ['b1', 'nope'] });
  expect(byIds.dryRun.sample.map((d: { id: string }) => d.id)).toEqual(['d00001', 'd00002']);
  const all = await start({ selector: { all: true }, action: 'SEND_COMMANDS', commands: [{ command: 'refresh' }], dryRun: true });
  expect(all.dryRun.targets).toBe(FLEET);
  expect(await tagCount('x')).toBe(0);
});

test(`${FLEET} devices tagged in one job, with progress and per-device results`, async () => {
  const t0 = performance.now();
  const started = await start({ selector: { all: true }, action: 'ADD_TAGS', tags: ['fleet-2026'] });
  expect(started).toMatchObject({ success: true, link: `/jobs/${started.jobId}` });
  const job = await finished(started.jobId!);
  const ms = performance.now() - t0;
  console.log(`bulk: ${FLEET} devices tagged in one job in ${ms.toFixed(0)} ms`);
  expect(job.state).toBe('succeeded');
  expect(job.progress).toEqual({ rowsDone: FLEET, rowsTotal: FLEET, rowsFailed: 0 });
  expect(job.result).toMatchObject({ total: FLEET, succeeded: FLEET, failed: 0 });
  expect(await tagCount('fleet-2026')).toBe(FLEET);
  const page = (await run(RESULTS, { jobId: job.id, limit: 3, offset: 9_998 })).data!.deviceBulkJobResults;
  expect(page).toEqual([
    { deviceId: 'd09998', state: 'OK', error: null, errorCode: null },
    { deviceId: 'd09999', state: 'OK', error: null, errorCode: null },
  ]);
  expect((await run(RESULTS, { jobId: job.id, state: 'FAILED' })).data!.deviceBulkJobResults).toEqual([]);
  // Another account sees no such job; its devices were never touched.
  expect((await run(RESULTS, { jobId: job.id }, principal('acc-b'))).data!.deviceBulkJobResults).toBeNull();
  expect((await f.store.collection<DeviceRecord>(DEVICES).findById('acc-b', 'b1'))?.tags).toEqual(['north']);
});

test("another account's and unknown ids fail one by one as not found; the rest are changed", async () => {
  const started = await start({ selector: { ids: ['d00001', 'b1', 'nope', 'd00003'] }, action: 'REMOVE_TAGS', tags: ['north'] });
  const job = await finished(started.jobId!);
  expect(job.progress).toEqual({ rowsDone: 4, rowsTotal: 4, rowsFailed: 2 });
  const results = (await run(RESULTS, { jobId: job.id })).data!.deviceBulkJobResults;
  expect(results).toEqual([
    { deviceId: 'd00001', state: 'OK', error: null, errorCode: null },
    { deviceId: 'd00003', state: 'OK', error: null, errorCode: null },
    { deviceId: 'b1', state: 'FAILED', error: "device 'b1' was not found", errorCode: 'NOT_FOUND' },
    { deviceId: 'nope', state: 'FAILED', error: "device 'nope' was not found", errorCode: 'NOT_FOUND' },
  ]);
  expect((await f.store.collection<DeviceRecord>(DEVICES).findById('acc-b', 'b1'))?.tags).toEqual(['north']);
  expect(await tagCount('north')).toBe(FLEET / 2 - 2);
});

test('policies are checked per action; bad input names its field', async () => {
  // A missing policy fails the request (FORBIDDEN), as for every mutation.
  const refused = async (input: Record<string, unknown>, who: Principal) => (await run(START, { input }, who)).errors?.[0]?.extensions?.code;
  expect(await refused({ selector: { tags: ['north'] }, action: 'ADD_TAGS', tags: ['y'] }, principal('acc-a', ['Devices_View']))).toBe('FORBIDDEN');
  const devicesOnly = principal('acc-a', ['Devices_View', 'Devices_Edit']);
  expect(await refused({ selector: { tags: ['north'] }, action: 'ASSIGN_SCHEDULE', scheduleId: 's1' }, devicesOnly)).toBe('FORBIDDEN');
  expect(await refused({ selector: { all: true }, action: 'ADD_TAGS', tags: ['y'], dryRun: true }, principal('acc-a', []))).toBe('FORBIDDEN');
  // This process has no scheduling link: refused, not half done.
  expect(await start({ selector: { tags: ['north'] }, action: 'ASSIGN_SCHEDULE', scheduleId: 's1' })).toMatchObject({
    success: false,
    errorCode: 'UNAVAILABLE',
  });
  expect(await start({ selector: {}, action: 'ADD_TAGS', tags: ['y'] })).toMatchObject({ success: false, errorField: 'selector' });
  expect(await start({ selector: { all: true }, action: 'MOVE_TO_GROUP', groupId: 'no-such-group' })).toMatchObject({ success: false, errorField: 'groupId' });
  expect(await start({ selector: { all: true }, action: 'SEND_COMMANDS', commands: [{ command: 'format_disk' }] })).toMatchObject({ success: false });
});

test('a job cut short by a restart resumes from its results; commands of the cut chunk are not sent twice', async () => {
  const first = new JobRunner(f.store, { maxPerAccount: 5, workers: 1 });
  f.replica({ jobs: first });
  // Start on the first runner and stop it at once: the job stays running with its targets seeded.
  const job = await first.submit('acc-a', 'u1', 'devices.bulk', {
    principal: { accountId: 'acc-a', userId: 'u1', userName: 'user', roles: ['Owner'], policies: ['Devices_View', 'Devices_Edit'], isOwner: true },
    bulk: {
      selector: { all: false, ids: null, tags: ['north'], groupIds: null, where: null },
      action: 'send_commands',
      tags: [],
      groupId: null,
      commands: [{ command: 'refresh' }],
      scheduleId: null,
    },
  });
  await first.close();
  const cut = await runner.get('acc-a', job.id);
  expect(['queued', 'running']).toContain(cut.state);
  // As if the process died while applying the first chunk.
  await f.store
    .collection<{ checkpoint: unknown }>({ name: 'jobs', indexes: [{ name: 'state', fields: ['state'] }] })
    .update('acc-a', job.id, { $set: { checkpoint: { resolved: true, inFlight: 0 } } });
  expect(await runner.resumeAll()).toBeGreaterThanOrEqual(1);
  const done = await finished(job.id);
  const targets = FLEET / 2 - 2;
  expect(done.state).toBe('succeeded');
  expect(done.progress).toEqual({ rowsDone: targets, rowsTotal: targets, rowsFailed: 1000 });
  const interrupted = (await run(RESULTS, { jobId: job.id, state: 'FAILED', limit: 1 })).data!.deviceBulkJobResults as unknown[];
  expect(interrupted[0]).toMatchObject({ errorCode: 'INTERRUPTED' });
  const sent = (await run(`{ deviceCommands(deviceId: "d09999") { command status } }`)).data!.deviceCommands;
  expect(sent).toEqual([{ command: 'refresh', status: 'QUEUED' }]);
});
