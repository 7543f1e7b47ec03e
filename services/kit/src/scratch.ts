/** Stores opened in throw-away directories (tests, scratch work). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `open`s a store in a fresh temporary directory named `prefix` plus a random suffix; the store's
 * close() then also removes the directory.
 */
export async function inScratchDir<S extends { close(): Promise<void> }>(prefix: string, open: (dir: string) => Promise<S>): Promise<S> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const removeDir = () => rm(dir, { recursive: true, force: true });
  let store: S;
  try {
    store = await open(dir);
  } catch (e) {
    await removeDir();
    throw e;
  }
  const close = store.close.bind(store);
  return Object.assign(store, {
    async close() {
      try {
        await close();
      } finally {
        await removeDir();
      }
    },
  });
}
