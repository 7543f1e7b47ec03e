/** The web player's bundle: `npm run build` keeps it beside the compiled module, and a start uses it only while it matches the sources. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPlayerBundle, writePlayerBundle } from '../src/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-player-bundle-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test('a kept bundle is the fresh build; it is read, not rebuilt, while its key matches; a stale or broken one is built again', async () => {
  const kept = join(dir, 'player-bundle.json');
  const fresh = await buildPlayerBundle(join(dir, 'none.json'));
  expect(fresh.player.length).toBeGreaterThan(1000);
  expect(fresh.sw.length).toBeGreaterThan(100);
  await writePlayerBundle(kept);
  const file = JSON.parse(await readFile(kept, 'utf8')) as { key: string; player: string; sw: string };
  expect({ player: file.player, sw: file.sw }).toEqual(fresh);
  // Read, not rebuilt: a marked copy under the same key comes back as it is.
  await writeFile(kept, JSON.stringify({ ...file, player: '/* kept */' }));
  expect((await buildPlayerBundle(kept)).player).toBe('/* kept */');
  // Another key (other sources, another esbuild) or a damaged file: built again.
  await writeFile(kept, JSON.stringify({ ...file, key: 'f'.repeat(64), player: '/* stale */' }));
  expect(await buildPlayerBundle(kept)).toEqual(fresh);
  await writeFile(kept, '{"key":');
  expect(await buildPlayerBundle(kept)).toEqual(fresh);
});
