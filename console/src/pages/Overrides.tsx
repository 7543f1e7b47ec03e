/**
 * Emergency overrides (docs/fleet-operations.md): start one over every schedule of the screens it
 * targets (all, tags, schedule groups, chosen screens), watch each screen acknowledge it live from
 * the event stream (override.started, override.acknowledged, override.ended re-read the override),
 * and cancel it; below, the CAP alert feeds that start overrides by themselves (CapFeeds.tsx).
 * Starting and cancelling need Overrides_Edit; reading needs Schedules_View.
 */
import { useEffect, useState } from 'react';
import { Async, Empty, ErrorState } from '../components/states';
import { graphql } from '../gql';
import type { OverrideContentType, OverrideInput } from '../gql/graphql';
import { gql } from '../lib/api';
import { followEvents, type StreamStatus } from '../lib/events';
import { plural, when } from '../lib/format';
import { useRights } from '../lib/permissions';
import { useQuery } from '../lib/use-query';
import { CapFeeds } from './CapFeeds';
import { RecordTable } from '../components/record-table';
import { handleSubmit, useAction } from '../lib/use-action';
import { NamedOptions } from '../components/forms';

const OverrideList = graphql(`
  query OverrideList {
    overrides(limit: 20) {
      id
      name
      state
      startsAt
      endsAt
      cancelledAt
      startedBy
      content {
        type
        text
        playlist {
          name
        }
        media {
          name
        }
      }
      target {
        all
        tags
        groupIds
        deviceIds
      }
      screenCounts {
        pending
        showing
        ended
        unreachable
      }
      screens {
        state
        shownAt
        stoppedAt
        device {
          id
          name
          isOnline
        }
      }
    }
    device(limit: 200, order: [{ name: ASC }]) {
      id
      name
    }
    playlist(limit: 200, order: [{ name: ASC }]) {
      id
      name
    }
  }
`);

const StartOverride = graphql(`
  mutation ConsoleStartOverride($input: OverrideInput!) {
    startOverride(input: $input) {
      success
      error
    }
  }
`);

const CancelOverride = graphql(`
  mutation ConsoleCancelOverride($id: ID!) {
    cancelOverride(id: $id) {
      success
      error
    }
  }
`);

interface Form {
  name: string;
  type: 'MESSAGE' | 'PLAYLIST';
  text: string;
  playlistId: string;
  all: boolean;
  tags: string;
  deviceIds: string[];
  minutes: string;
}

const EMPTY: Form = { name: '', type: 'MESSAGE', text: '', playlistId: '', all: false, tags: '', deviceIds: [], minutes: '' };

export function OverridesPage() {
  const canEdit = useRights().can('Overrides', 'edit');
  const q = useQuery(() => gql(OverrideList), []);
  const [stream, setStream] = useState<StreamStatus>({ state: 'connecting' });
  const [form, setForm] = useState<Form>(EMPTY);
  const { busy, error, run } = useAction();
  const { reload } = q;
  useEffect(() => followEvents((e) => e.type.startsWith('override.') && reload(), setStream), [reload]);

  const act = (f: () => Promise<{ success: boolean; error?: string | null } | null | undefined>) =>
    run(async () => {
      const r = await f();
      if (!r?.success) throw new Error(r?.error ?? 'refused');
      reload();
    });
  const start = async () => {
    const tags = form.tags
      .split(/[\s,]+/)
      .map((t) => t.trim())
      .filter(Boolean);
    const input: OverrideInput = {
      name: form.name,
      content:
        form.type === 'MESSAGE'
          ? { type: 'MESSAGE' as OverrideContentType, text: form.text }
          : { type: 'PLAYLIST' as OverrideContentType, playlistId: form.playlistId },
      target: { all: form.all, tags, deviceIds: form.deviceIds },
      endsAt: form.minutes ? new Date(Date.now() + Number(form.minutes) * 60_000).toISOString() : null,
    };
    if (await act(async () => (await gql(StartOverride, { input })).startOverride)) setForm(EMPTY);
  };

  return (
    <section>
      <div className="title-row">
        <h1>Emergency overrides</h1>
        <span className={`badge live-${stream.state}`} role="status">
          {stream.state === 'live' ? 'live' : stream.state === 'forbidden' ? 'no live updates' : `${stream.state}…`}
        </span>
      </div>
      <Async q={q} what="overrides">
        {(d) => (
          <>
            {canEdit && (
              <form className="card stack" aria-labelledby="ov-new-h" onSubmit={handleSubmit(start)}>
                <h2 id="ov-new-h">Start an override</h2>
                <p className="muted">It shows over every schedule on the screens it targets, at once, until cancelled or its time runs out.</p>
                <label>
                  Name <input required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} placeholder="Evacuate" />
                </label>
                <fieldset>
                  <legend>Content</legend>
                  <label className="inline">
                    <input type="radio" name="ov-type" checked={form.type === 'MESSAGE'} onChange={() => setForm({ ...form, type: 'MESSAGE' })} /> a message
                  </label>
                  <label className="inline">
                    <input type="radio" name="ov-type" checked={form.type === 'PLAYLIST'} onChange={() => setForm({ ...form, type: 'PLAYLIST' })} /> a playlist
                  </label>
                  {form.type === 'MESSAGE' ? (
                    <label>
                      Message{' '}
                      <input required value={form.text} onChange={(e) => setForm({ ...form, text: e.target.value })} placeholder="Leave by the east exit" />
                    </label>
                  ) : (
                    <label>
                      Playlist{' '}
                      <select required value={form.playlistId} onChange={(e) => setForm({ ...form, playlistId: e.target.value })}>
                        <option value="">Choose…</option>
                        <NamedOptions items={d.playlist} />
                      </select>
                    </label>
                  )}
                </fieldset>
                <fieldset>
                  <legend>Screens</legend>
                  <label className="inline">
                    <input type="checkbox" checked={form.all} onChange={(e) => setForm({ ...form, all: e.target.checked })} /> every screen of the account
                  </label>
                  <label>
                    Screens tagged (comma-separated){' '}
                    <input value={form.tags} onChange={(e) => setForm({ ...form, tags: e.target.value })} placeholder="lobby" />
                  </label>
                  <label>
                    These screens{' '}
                    <select
                      multiple
                      size={Math.min(6, Math.max(2, d.device?.length ?? 2))}
                      value={form.deviceIds}
                      onChange={(e) => setForm({ ...form, deviceIds: [...e.target.selectedOptions].map((o) => o.value) })}
                    >
                      <NamedOptions items={d.device} />
                    </select>
                  </label>
                </fieldset>
                <label>
                  Ends after (minutes; empty: until cancelled){' '}
                  <input type="number" min={1} value={form.minutes} onChange={(e) => setForm({ ...form, minutes: e.target.value })} />
                </label>
                <div className="actions">
                  <button type="submit" className="primary danger" disabled={busy || (!form.all && !form.tags.trim() && form.deviceIds.length === 0)}>
                    Start override
                  </button>
                </div>
              </form>
            )}
            {error && <ErrorState error={error} />}
            {!d.overrides.length ? (
              <Empty title="No overrides">
                <p>{canEdit ? 'Start one above when every screen must show the same thing now.' : 'An owner or administrator can start one.'}</p>
              </Empty>
            ) : (
              d.overrides.map((o) => {
                const open = o.state === 'ACTIVE' || o.state === 'SCHEDULED';
                return (
                  <section key={o.id} className={`card override ${open ? 'open' : ''}`} aria-labelledby={`ov-${o.id}`}>
                    <div className="title-row">
                      <h2 id={`ov-${o.id}`}>{o.name}</h2>
                      <span className={`verdict v-${o.state.toLowerCase()}`}>{o.state.toLowerCase()}</span>
                      {canEdit && open && (
                        <button
                          type="button"
                          className="danger"
                          disabled={busy}
                          onClick={() => void act(async () => (await gql(CancelOverride, { id: o.id })).cancelOverride)}
                        >
                          Cancel {o.name}
                        </button>
                      )}
                    </div>
                    <p className="meta">
                      {o.content.type === 'MESSAGE'
                        ? `message “${o.content.text}”`
                        : `${o.content.type.toLowerCase()} ${o.content.playlist?.name ?? o.content.media?.name ?? ''}`}{' '}
                      · started {when(o.startsAt)} by {o.startedBy} ·{' '}
                      {o.cancelledAt ? `cancelled ${when(o.cancelledAt)}` : o.endsAt ? `ends ${when(o.endsAt)}` : 'until cancelled'} · targets{' '}
                      {[
                        o.target.all && 'every screen',
                        o.target.tags.length && `tags ${o.target.tags.join(', ')}`,
                        o.target.deviceIds.length && plural(o.target.deviceIds.length, 'chosen screen'),
                      ]
                        .filter(Boolean)
                        .join(', ') || 'groups'}
                    </p>
                    <p data-testid="override-counts">
                      {o.screenCounts.showing} showing · {o.screenCounts.pending} pending · {o.screenCounts.ended} ended · {o.screenCounts.unreachable}{' '}
                      unreachable
                    </p>
                    {o.screens.length === 0 ? (
                      <Empty title="No screen matched its targets" />
                    ) : (
                      <RecordTable
                        caption={<>Acknowledgement per screen ({plural(o.screens.length, 'screen')})</>}
                        columns={['Screen', 'State', 'Shown', 'Stopped']}
                      >
                        {o.screens.map((s) => (
                          <tr key={s.device.id}>
                            <td>
                              <span className={`dot ${s.device.isOnline ? 'ok' : 'off'}`} aria-hidden="true" />
                              {s.device.name}
                            </td>
                            <td>{s.state.toLowerCase()}</td>
                            <td>{when(s.shownAt)}</td>
                            <td>{when(s.stoppedAt)}</td>
                          </tr>
                        ))}
                      </RecordTable>
                    )}
                  </section>
                );
              })
            )}
          </>
        )}
      </Async>
      <CapFeeds canEdit={canEdit} />
    </section>
  );
}
