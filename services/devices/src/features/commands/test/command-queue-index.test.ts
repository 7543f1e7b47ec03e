/**
 * Every ping (and every wake-up of a long-poll) reads its device's queued commands. Without an index
 * that read scanned every command of the account: after 20,000 bulk commands, 200 long-polling
 * screens took 17 s to load and missed schedule edits for 30 s (bench scenario 11, 2026-11-24).
 * The planner the embedded store and the Mongo emulation share must serve the read by key, in order.
 */
import { planIndex } from '@pylon/adapters/documents';
import { pendingQuery } from '../command.repository.js';
import { DEVICE_COMMANDS } from '../../../domain/collections.js';

test("a device's queued commands are read through the byDevice index, already in queue order", () => {
  const { filter, sort } = pendingQuery('device-1');
  const plan = planIndex(DEVICE_COMMANDS.indexes ?? [], filter, Object.entries(sort) as Array<[string, 1 | -1]>);
  expect(plan?.index.name).toBe('byDevice');
  expect(plan?.equal).toEqual(['device-1', 'queued']);
  expect(plan?.ordered).toBe(true);
});
