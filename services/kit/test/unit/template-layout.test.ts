/** The one template-module mapping (kit template-layout.ts) content and scheduling both use, through kit's public entry. */
import { mapTemplateLayout, templateLayoutOf, type TemplateLayout } from '../../src/index.js';

const stored = {
  id: 't1',
  name: 'Lobby',
  width: 1920,
  height: 1080,
  orientation: 0,
  // Fields a layout does not carry (a stored template's group, a module's type) stay behind.
  groupId: 'g1',
  modules: [
    { id: 'm1', name: 'Main', type: 'video', left: 0, top: 0, width: 1440, height: 1080, playlistId: 'p1', dataTableId: null },
    { id: 'm2', name: null, type: null, left: 1440, top: 0, width: 480, height: 1080, playlistId: null, dataTableId: 'dt1' },
    // An older record without dataTableId.
    { id: 'm3', name: 'Ticker', type: null, left: 0, top: 1000, width: 1920, height: 80, playlistId: 'gone' },
  ],
};

test('a stored template (modules naming playlists by id) becomes a layout with each playlist resolved, nothing else copied', () => {
  const playlists = new Map([['p1', { id: 'p1', sources: [] }]]);
  const layout = templateLayoutOf(stored, (m) => (m.playlistId ? (playlists.get(m.playlistId) ?? null) : null));
  expect(layout).toEqual({
    id: 't1',
    name: 'Lobby',
    width: 1920,
    height: 1080,
    orientation: 0,
    modules: [
      { id: 'm1', name: 'Main', left: 0, top: 0, width: 1440, height: 1080, playlist: { id: 'p1', sources: [] }, dataTableId: null },
      { id: 'm2', name: null, left: 1440, top: 0, width: 480, height: 1080, playlist: null, dataTableId: 'dt1' },
      { id: 'm3', name: 'Ticker', left: 0, top: 1000, width: 1920, height: 80, playlist: null, dataTableId: null },
    ],
  });
  // Key order is part of the contract: manifests hash their JSON.
  expect(Object.keys(layout.modules[0]!)).toEqual(['id', 'name', 'left', 'top', 'width', 'height', 'playlist', 'dataTableId']);
  expect(templateLayoutOf({ ...stored, modules: null }, () => null).modules).toEqual([]);
});

test('a layout maps to another form of its playlists; modules without one keep null and the mapper is not called for them', () => {
  const layout: TemplateLayout<{ id: string }> = {
    id: 't1',
    name: 'Lobby',
    width: null,
    height: null,
    orientation: null,
    modules: [
      { id: 'm1', name: 'Main', left: 0, top: 0, width: 10, height: 10, playlist: { id: 'p1' } },
      { id: 'm2', name: null, left: 10, top: 0, width: 10, height: 10, playlist: null, dataTableId: 'dt1' },
    ],
  };
  const seen: string[] = [];
  const out = mapTemplateLayout(layout, (p) => (seen.push(p.id), { type: 'playlist', id: p.id.toUpperCase() }));
  expect(seen).toEqual(['p1']);
  expect(out.modules.map((m) => [m.playlist, m.dataTableId])).toEqual([
    [{ type: 'playlist', id: 'P1' }, null],
    [null, 'dt1'],
  ]);
  expect(out).not.toBe(layout);
});
