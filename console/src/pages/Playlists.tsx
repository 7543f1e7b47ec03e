/**
 * Playlists and templates: a playlist's sources in play order, reordered by dragging or from the
 * keyboard (each row's move buttons, or Alt+Arrow on a focused row), their durations edited in
 * place, media added from the library, and a live preview that plays the order as the screen
 * would (leaving out what is expired or not yet valid, as screens do); each source's validity
 * window is shown and edited in place (content expiry). Templates are drawn as their zones, each naming the playlist it plays. Writes need
 * Playlists edit rights; each carries the version read, so a concurrent edit is refused, not lost.
 */
import { useEffect, useState, type DragEvent, type KeyboardEvent } from 'react';
import { Async, AsyncList, Empty, ErrorState } from '../components/states';
import { effective, ValidityBadge, ValidityEditor } from '../components/validity';
import { graphql } from '../gql';
import type { PlaylistEditorQuery } from '../gql/graphql';
import { gql } from '../lib/api';
import { errorOf, plural } from '../lib/format';
import { useRights } from '../lib/permissions';
import { useAction } from '../lib/use-action';
import { useQuery } from '../lib/use-query';
import { NamedOptions } from '../components/forms';

const PlaylistList = graphql(`
  query PlaylistList {
    playlistCount
    playlist(limit: 100, order: [{ name: ASC }]) {
      id
      name
      calculatedDuration
      sources {
        id
      }
    }
  }
`);

const PlaylistEditor = graphql(`
  query PlaylistEditor($id: String!) {
    playlist(where: { id: { eq: $id } }, limit: 1) {
      id
      name
      version
      calculatedDuration
      sources {
        id
        name
        type
        sequence
        interval
        url
        validFrom
        validUntil
        media {
          id
          name
          mimeType
          thumbnailUrl
          validFrom
          validUntil
        }
      }
    }
    media(limit: 50, order: [{ uploadedOn: DESC }]) {
      id
      name
      mimeType
    }
  }
`);

const CreatePlaylist = graphql(`
  mutation CreatePlaylist($name: String!) {
    createPlaylist(input: { name: $name }) {
      success
      error
      playlist {
        id
      }
    }
  }
`);

const ReorderSources = graphql(`
  mutation ReorderSources($input: ReorderPlaylistSourcesInput!) {
    reorderPlaylistSources(input: $input) {
      success
      error
    }
  }
`);

const UpdateSource = graphql(`
  mutation UpdateSource($input: UpdatePlaylistSourceInput!) {
    updatePlaylistSource(input: $input) {
      success
      error
    }
  }
`);

const AddSource = graphql(`
  mutation AddSource($input: AddPlaylistSourceInput!) {
    addPlaylistSource(input: $input) {
      success
      error
    }
  }
`);

const RemoveSource = graphql(`
  mutation RemoveSource($playlistId: ID!, $sourceId: ID!, $expectedVersion: Int) {
    removePlaylistSource(playlistId: $playlistId, sourceId: $sourceId, expectedVersion: $expectedVersion) {
      success
      error
    }
  }
`);

const TemplateList = graphql(`
  query TemplateList {
    template(limit: 50, order: [{ name: ASC }]) {
      id
      name
      width
      height
      modules {
        id
        name
        left
        top
        width
        height
        playlist {
          id
          name
        }
        dataTableId
      }
    }
  }
`);

type Playlist = NonNullable<PlaylistEditorQuery['playlist']>[number];
type Source = Playlist['sources'][number];

/** False for a source a screen leaves out now: expired or not yet valid (its own window or its file's). */
const playsNow = (s: Source) => !['expired', 'not-yet-valid'].includes(effective([s, s.media ?? {}]).state);

const seconds = (n: number) => (n >= 60 ? `${Math.floor(n / 60)} min ${n % 60 ? `${n % 60} s` : ''}`.trim() : `${n} s`);

/** Throws the payload's error when a mutation answered success: false. */
function ok(p: { success: boolean; error?: string | null } | null | undefined): void {
  if (!p?.success) throw new Error(p?.error ?? 'the change was refused');
}

/** Plays the sources in order, each for its interval (10 s when it has none), as a screen would. */
function Preview({ sources }: { sources: Source[] }) {
  const [i, setI] = useState(0);
  const [paused, setPaused] = useState(false);
  const current = sources[i % Math.max(1, sources.length)];
  useEffect(() => {
    if (paused || sources.length < 2) return;
    const t = setTimeout(() => setI((n) => (n + 1) % sources.length), (current?.interval ?? 10) * 1000);
    return () => clearTimeout(t);
  }, [i, paused, sources.length, current?.interval]);
  if (!current) return <Empty title="Nothing to preview" />;
  return (
    <figure className="preview" aria-label="Live preview">
      <div className="preview-screen">
        {current.media?.thumbnailUrl ? (
          <img src={current.media.thumbnailUrl} alt="" />
        ) : (
          <span>{current.media?.name ?? current.name ?? current.url ?? current.type}</span>
        )}
      </div>
      <figcaption aria-live="polite">
        {(i % sources.length) + 1} of {sources.length}: {current.media?.name ?? current.name ?? current.type} for {seconds(current.interval ?? 10)}{' '}
        <button type="button" onClick={() => setPaused((p) => !p)}>
          {paused ? 'Play' : 'Pause'}
        </button>
      </figcaption>
    </figure>
  );
}

function Editor({ id, onChanged }: { id: string; onChanged: () => void }) {
  const rights = useRights();
  const canEdit = rights.can('Playlists', 'edit');
  const q = useQuery(() => gql(PlaylistEditor, { id }), [id]);
  const [order, setOrder] = useState<Source[]>([]);
  const [dragging, setDragging] = useState<number>();
  const action = useAction();
  const { busy, error } = action;
  const [status, setStatus] = useState('');
  const [add, setAdd] = useState('');
  const [validityOf, setValidityOf] = useState<string>();
  const p = q.data?.playlist?.[0];
  useEffect(() => setOrder(p ? [...p.sources].sort((a, b) => a.sequence - b.sequence) : []), [p]);

  /** Runs a change; when it went through, says `what` and reloads. */
  const run = (what: string, f: () => Promise<void>) =>
    action.run(async () => {
      await f();
      setStatus(what);
      q.reload();
      onChanged();
    });
  const move = (from: number, to: number) => {
    if (!p || to < 0 || to >= order.length || from === to) return;
    const next = [...order];
    const [it] = next.splice(from, 1);
    next.splice(to, 0, it!);
    setOrder(next);
    void run(`Moved ${it!.media?.name ?? it!.name ?? 'the source'} to position ${to + 1}.`, async () =>
      ok((await gql(ReorderSources, { input: { playlistId: p.id, sourceIds: next.map((s) => s.id), expectedVersion: p.version } })).reorderPlaylistSources),
    );
  };
  const onKey = (e: KeyboardEvent, i: number) => {
    if (!e.altKey || (e.key !== 'ArrowUp' && e.key !== 'ArrowDown')) return;
    e.preventDefault();
    move(i, e.key === 'ArrowUp' ? i - 1 : i + 1);
  };

  return (
    <Async q={q} what="the playlist">
      {() =>
        !p ? (
          <Empty title="This playlist no longer exists">
            <p>Pick another playlist from the list.</p>
          </Empty>
        ) : (
          <div className="editor">
            <h2>{p.name}</h2>
            <p className="muted">
              {plural(order.length, 'source')}, one pass {seconds(p.calculatedDuration)}.{' '}
              {canEdit && 'Drag a row, use its move buttons, or focus it and press Alt+Up / Alt+Down to reorder.'}
            </p>
            {error && <ErrorState error={error} retry={q.reload} />}
            <p className="visually-hidden" role="status" aria-live="polite">
              {status}
            </p>
            {order.length === 0 ? (
              <Empty title="This playlist is empty">
                <p>{canEdit ? 'Add media from the library below.' : 'An editor can add media to it.'}</p>
              </Empty>
            ) : (
              <ol className="sources" aria-label={`Sources of ${p.name}, in play order`}>
                {order.map((s, i) => (
                  <li
                    key={s.id}
                    tabIndex={canEdit ? 0 : undefined}
                    draggable={canEdit && !busy}
                    className={dragging === i ? 'dragging' : undefined}
                    onKeyDown={(e) => onKey(e, i)}
                    onDragStart={(e: DragEvent) => {
                      setDragging(i);
                      e.dataTransfer.effectAllowed = 'move';
                    }}
                    onDragEnd={() => setDragging(undefined)}
                    onDragOver={(e) => e.preventDefault()}
                    onDrop={(e) => {
                      e.preventDefault();
                      if (dragging !== undefined) move(dragging, i);
                      setDragging(undefined);
                    }}
                  >
                    <span className="handle" aria-hidden="true">
                      ⠿
                    </span>
                    <span className="pos">{i + 1}</span>
                    <span className="src-name">
                      {s.media?.name ?? s.name ?? s.url ?? s.type} <ValidityBadge windows={[s, s.media ?? {}]} />
                    </span>
                    {canEdit ? (
                      <>
                        <label>
                          <span className="visually-hidden">Seconds for {s.media?.name ?? s.name ?? 'this source'}</span>
                          <input
                            type="number"
                            min={1}
                            max={86400}
                            defaultValue={s.interval ?? ''}
                            placeholder="own"
                            onBlur={(e) => {
                              const v = e.currentTarget.value ? Number(e.currentTarget.value) : null;
                              if (v === (s.interval ?? null) || v === null) return;
                              void run(`Duration set to ${seconds(v)}.`, async () =>
                                ok(
                                  (await gql(UpdateSource, { input: { playlistId: p.id, sourceId: s.id, interval: v, expectedVersion: p.version } }))
                                    .updatePlaylistSource,
                                ),
                              );
                            }}
                          />{' '}
                          s
                        </label>
                        <button
                          type="button"
                          aria-expanded={validityOf === s.id}
                          onClick={() => setValidityOf(validityOf === s.id ? undefined : s.id)}
                          aria-label={`Validity of ${s.media?.name ?? s.name ?? 'source'}`}
                        >
                          ⏱
                        </button>
                        <button
                          type="button"
                          disabled={busy || i === 0}
                          onClick={() => move(i, i - 1)}
                          aria-label={`Move ${s.media?.name ?? s.name ?? 'source'} up`}
                        >
                          ↑
                        </button>
                        <button
                          type="button"
                          disabled={busy || i === order.length - 1}
                          onClick={() => move(i, i + 1)}
                          aria-label={`Move ${s.media?.name ?? s.name ?? 'source'} down`}
                        >
                          ↓
                        </button>
                        <button
                          type="button"
                          disabled={busy}
                          onClick={() =>
                            void run('Source removed.', async () =>
                              ok((await gql(RemoveSource, { playlistId: p.id, sourceId: s.id, expectedVersion: p.version })).removePlaylistSource),
                            )
                          }
                          aria-label={`Remove ${s.media?.name ?? s.name ?? 'source'}`}
                        >
                          ✕
                        </button>
                      </>
                    ) : (
                      <span>{s.interval ? seconds(s.interval) : 'own length'}</span>
                    )}
                    {validityOf === s.id && (
                      <ValidityEditor
                        name={s.media?.name ?? s.name ?? 'this source'}
                        validFrom={s.validFrom}
                        validUntil={s.validUntil}
                        onClose={() => setValidityOf(undefined)}
                        onSave={async (validFrom, validUntil) => {
                          // Errors stay in the open editor (it throws), not in the page's banner.
                          ok(
                            (await gql(UpdateSource, { input: { playlistId: p.id, sourceId: s.id, validFrom, validUntil, expectedVersion: p.version } }))
                              .updatePlaylistSource,
                          );
                          setStatus('Validity saved.');
                          q.reload();
                          onChanged();
                        }}
                      />
                    )}
                  </li>
                ))}
              </ol>
            )}
            {canEdit && (
              <form
                className="filters"
                onSubmit={(e) => {
                  e.preventDefault();
                  if (!add) return;
                  void run('Media added.', async () =>
                    ok((await gql(AddSource, { input: { playlistId: p.id, fileId: add, interval: 10, expectedVersion: p.version } })).addPlaylistSource),
                  );
                }}
              >
                <label>
                  Add media{' '}
                  <select value={add} onChange={(e) => setAdd(e.target.value)}>
                    <option value="">Choose from the library…</option>
                    <NamedOptions items={q.data?.media} />
                  </select>
                </label>
                <button type="submit" disabled={!add || busy}>
                  Add to playlist
                </button>
              </form>
            )}
            <h3>Live preview</h3>
            <Preview sources={order.filter(playsNow)} />
          </div>
        )
      }
    </Async>
  );
}

function Templates() {
  const q = useQuery(() => gql(TemplateList), []);
  return (
    <section aria-labelledby="tpl-h" className="card">
      <h2 id="tpl-h">Templates</h2>
      <AsyncList
        q={q}
        what="templates"
        of={(d) => d.template}
        empty="No templates yet"
        hint="Create one through the API (createTemplate); it shows here with its zones."
      >
        {(templates) => (
          <ul className="templates">
            {templates.map((t) => {
              const w = t.width || 1920;
              const h = t.height || 1080;
              return (
                <li key={t.id}>
                  <h3>{t.name}</h3>
                  <div
                    className="zones"
                    style={{ aspectRatio: `${w} / ${h}` }}
                    role="img"
                    aria-label={`${t.name}: ${plural(t.modules.length, 'zone')}, ${w}×${h}`}
                  >
                    {t.modules.map((m) => (
                      <div
                        key={m.id}
                        className="zone"
                        style={{
                          left: `${(m.left / w) * 100}%`,
                          top: `${(m.top / h) * 100}%`,
                          width: `${(m.width / w) * 100}%`,
                          height: `${(m.height / h) * 100}%`,
                        }}
                      >
                        {m.name ?? 'zone'}
                        <small>{m.playlist?.name ?? (m.dataTableId ? 'data table' : 'empty')}</small>
                      </div>
                    ))}
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </AsyncList>
    </section>
  );
}

export function PlaylistsPage() {
  const rights = useRights();
  const q = useQuery(() => gql(PlaylistList), []);
  const [selected, setSelected] = useState<string>();
  const [name, setName] = useState('');
  const [error, setError] = useState<Error>();
  const create = async () => {
    setError(undefined);
    try {
      const r = (await gql(CreatePlaylist, { name })).createPlaylist;
      ok(r);
      setName('');
      setSelected(r!.playlist!.id);
      q.reload();
    } catch (e) {
      setError(errorOf(e));
    }
  };
  const current = selected ?? q.data?.playlist?.[0]?.id;
  return (
    <section>
      <h1>Playlists and templates</h1>
      <div className="columns">
        <section aria-labelledby="pl-h" className="card">
          <h2 id="pl-h">Playlists</h2>
          {rights.can('Playlists', 'edit') && (
            <form
              className="filters"
              onSubmit={(e) => {
                e.preventDefault();
                if (name.trim()) void create();
              }}
            >
              <label>
                New playlist <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Name" />
              </label>
              <button type="submit" disabled={!name.trim()}>
                Create
              </button>
            </form>
          )}
          {error && <ErrorState error={error} />}
          <AsyncList
            q={q}
            what="playlists"
            of={(d) => d.playlist}
            empty="No playlists yet"
            hint={rights.can('Playlists', 'edit') ? 'Create one above, then add media to it.' : 'An editor can create one.'}
          >
            {(playlists) => (
              <ul className="picklist" aria-label="Playlists">
                {playlists.map((p) => (
                  <li key={p.id}>
                    <button type="button" aria-pressed={p.id === current} onClick={() => setSelected(p.id)}>
                      {p.name}{' '}
                      <span className="muted">
                        ({plural(p.sources.length, 'source')}, {seconds(p.calculatedDuration)})
                      </span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </AsyncList>
        </section>
        <section aria-label="Playlist editor" className="card">
          {current ? <Editor id={current} onChanged={q.reload} /> : <Empty title="Pick a playlist to edit it" />}
        </section>
      </div>
      <Templates />
    </section>
  );
}
