/**
 * The runner's fence: `beforeStatement` is awaited before every statement it sends (once before a
 * script-taking store's single call), and a rejection stops the run there: nothing more is sent and
 * the file is not recorded.
 */
import { runMigrations } from '../../src/analytics/analytics.migrations.js';

const lost = new Error('the migration lease was taken over by another process');

test('a rejected check stops the run before the next statement; the file is not recorded', async () => {
  const sent: string[] = [];
  let checks = 0;
  const target = {
    query: async <T>() => [] as T[],
    exec: async (sql: string) => {
      sent.push(sql);
    },
  };
  const run = runMigrations(target, undefined, {
    beforeStatement: async () => {
      if (++checks === 4) throw lost;
    },
  });
  await expect(run).rejects.toBe(lost);
  // schema_migrations, then two statements of 001; the fourth check refused the third.
  expect(sent).toHaveLength(3);
  expect(sent.some((s) => /INSERT INTO schema_migrations/.test(s))).toBe(false);
});

test('a store that takes whole scripts is checked once before its one call', async () => {
  const calls: string[] = [];
  const target = {
    query: async <T>() => [] as T[],
    exec: async () => {
      calls.push('exec');
    },
    execScript: async () => {
      calls.push('script');
    },
  };
  await runMigrations(target, undefined, { beforeStatement: async () => void calls.push('check') });
  expect(calls).toEqual(['check', 'exec', 'check', 'script']);
  await expect(runMigrations(target, undefined, { beforeStatement: async () => Promise.reject(lost) })).rejects.toBe(lost);
});
