/** The job machinery (kit jobs.ts) over the embedded documents store: life cycle, limits, tenancy, cancel, restart. */
import { createScratchLmdbStore } from '../../src/lmdb/documents.lmdb.js';
import { JobRunner, type DocumentStore, type Job, type JobContext } from '@pylon/kit';
import { testPrincipal } from '@pylon/kit/testing';

let store: DocumentStore;
beforeEach(async () => {
  store = await createScratchLmdbStore('pylon-jobs-');
});
afterEach(() => store.close());

const ACCESS = { view: 'DataTables_View', edit: 'DataTables_Edit' } as const;
const tick = () => new Promise((r) => setTimeout(r, 5));

async function until(runner: JobRunner, tenant: string, id: string, states: string[], ms = 10_000): Promise<Job> {
  for (const deadline = Date.now() + ms; ;) {
    const job = await runner.get(tenant, id);
    if (states.includes(job.state)) return job;
    if (Date.now() > deadline) throw new Error(`job stayed ${job.state}`);
    await tick();
  }
}

/** A handler counting to `input.n` in steps of 10, checkpointing each step; `gate` holds it between steps. */
function counter(gate: { open: boolean }, seen: number[]) {
  return async (ctx: JobContext) => {
    const n = Number(ctx.job.input.n);
    let at = Number((ctx.job.checkpoint as { at?: number } | null)?.at ?? 0);
    seen.push(at);
    while (at < n) {
      while (!gate.open) await tick();
      at += 10;
      await ctx.report({ progress: { rowsDone: at, rowsTotal: n }, checkpoint: { at }, errors: at === 20 ? [{ line: 20, error: 'bad', field: 'x' }] : [] });
    }
    return { counted: at };
  };
}

test('a job runs to success, reporting progress, row errors and its result', async () => {
  const runner = new JobRunner(store);
  runner.register('count', counter({ open: true }, []), ACCESS);
  const job = await runner.submit('acc-a', 'u1', 'count', { n: 50 });
  expect(job.state).toBe('queued');
  const done = await until(runner, 'acc-a', job.id, ['succeeded']);
  expect(done).toMatchObject({ progress: { rowsDone: 50, rowsTotal: 50 }, errors: [{ line: 20, error: 'bad', field: 'x' }], result: { counted: 50 } });
  expect(done.finishedAt).toBeTruthy();
  await runner.close();
});

test("another account's job is NOT_FOUND; reading needs the policy of the job's work", async () => {
  const runner = new JobRunner(store);
  runner.register('count', counter({ open: true }, []), ACCESS);
  const job = await runner.submit('acc-a', 'u1', 'count', { n: 10 });
  await expect(runner.read(testPrincipal('acc-b'), job.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(runner.cancelAs(testPrincipal('acc-b'), job.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(runner.read(testPrincipal('acc-a', ['Devices_View']), job.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  await expect(runner.cancelAs(testPrincipal('acc-a', ['DataTables_View']), job.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  expect((await runner.read(testPrincipal('acc-a', ['DataTables_View']), job.id)).id).toBe(job.id);
  await until(runner, 'acc-a', job.id, ['succeeded']);
  await runner.close();
});

test('per-account concurrency: a third unfinished job is RATE_LIMITED; other accounts are not affected; queued and running jobs cancel', async () => {
  const gate = { open: false };
  const runner = new JobRunner(store, { maxPerAccount: 2, workers: 1 });
  runner.register('count', counter(gate, []), ACCESS);
  const a1 = await runner.submit('acc-a', 'u1', 'count', { n: 100 });
  const a2 = await runner.submit('acc-a', 'u1', 'count', { n: 100 });
  await expect(runner.submit('acc-a', 'u1', 'count', { n: 100 })).rejects.toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/at most 2/) });
  const b1 = await runner.submit('acc-b', 'u1', 'count', { n: 10 });
  // One worker: a1 runs (held by the gate), a2 and b1 wait.
  await until(runner, 'acc-a', a1.id, ['running']);
  expect((await runner.cancelAs(testPrincipal('acc-a'), a2.id)).state).toBe('cancelled');
  await runner.cancelAs(testPrincipal('acc-a'), a1.id);
  gate.open = true;
  const stopped = await until(runner, 'acc-a', a1.id, ['cancelled']);
  expect(stopped.progress.rowsDone).toBeLessThan(100);
  expect((await until(runner, 'acc-b', b1.id, ['succeeded'])).result).toEqual({ counted: 10 });
  // Slots are free again.
  expect((await runner.submit('acc-a', 'u1', 'count', { n: 10 })).state).toBe('queued');
  await runner.close();
});

test('a job left running by a stopped process resumes from its checkpoint in the next one', async () => {
  const gate = { open: true };
  const seen: number[] = [];
  const first = new JobRunner(store);
  first.register('count', counter(gate, seen), ACCESS);
  const job = await first.submit('acc-a', 'u1', 'count', { n: 1000 });
  for (;;) {
    const j = await first.get('acc-a', job.id);
    if (j.progress.rowsDone >= 30) break;
    await tick();
  }
  gate.open = false;
  await first.close();
  const left = await first.get('acc-a', job.id);
  expect(left.state).toBe('running');
  const at = (left.checkpoint as { at: number }).at;
  expect(at).toBeGreaterThanOrEqual(30);

  gate.open = true;
  const second = new JobRunner(store);
  second.register('count', counter(gate, seen), ACCESS);
  expect(await second.resumeAll()).toBe(1);
  const done = await until(second, 'acc-a', job.id, ['succeeded']);
  expect(done.result).toEqual({ counted: 1000 });
  // The second run started where the first left off, not at 0.
  expect(seen).toEqual([0, at]);
  await second.close();
  // Nothing is left to resume.
  const third = new JobRunner(store);
  third.register('count', counter(gate, seen), ACCESS);
  expect(await third.resumeAll()).toBe(0);
  await third.close();
});

test("a process that does not run a job's kind leaves it unfinished for the process that does (distributed: devices' bulk jobs, datatables' imports)", async () => {
  const gate = { open: true };
  const first = new JobRunner(store);
  first.register('count', counter(gate, []), ACCESS);
  const job = await first.submit('acc-a', 'u1', 'count', { n: 100_000 });
  while ((await first.get('acc-a', job.id)).progress.rowsDone < 10) await tick();
  // Stopped mid-run (its next report sees the close): left running, with a checkpoint.
  await first.close();
  // Another process's runner, without the kind, starts: the job is not failed for want of a handler.
  const other = new JobRunner(store);
  other.register('something-else', async () => ({}), ACCESS);
  await other.resumeAll();
  await other.close();
  expect((await other.get('acc-a', job.id)).state).toBe('running');
  const owner = new JobRunner(store);
  owner.register('count', counter(gate, []), ACCESS);
  expect(await owner.resumeAll()).toBe(1);
  expect((await until(owner, 'acc-a', job.id, ['running'])).state).toBe('running');
  await owner.cancel('acc-a', job.id);
  expect((await until(owner, 'acc-a', job.id, ['cancelled'])).state).toBe('cancelled');
  await owner.close();
});

test('a handler that throws fails the job with its reason; cleanup runs at every end', async () => {
  const cleaned: string[] = [];
  const runner = new JobRunner(store);
  runner.register(
    'broken',
    async () => {
      const { AppError } = await import('@pylon/kit/errors');
      throw new AppError('BAD_USER_INPUT', 'the file is empty', { field: 'file' });
    },
    { ...ACCESS, cleanup: async (j) => void cleaned.push(j.id) },
  );
  const job = await runner.submit('acc-a', 'u1', 'broken', {});
  const failed = await until(runner, 'acc-a', job.id, ['failed']);
  expect(failed.error).toBe('the file is empty');
  await runner.close();
  expect(cleaned).toEqual([job.id]);
});
