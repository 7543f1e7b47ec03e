/**
 * CAP alert feeds on the Overrides page (docs/fleet-operations.md): a public warning system's CAP 1.2
 * feed starts overrides by itself on the screens inside each alert's areas. Listed with their last
 * poll (when, and why it failed) and the alerts they read; added (URL, severities, the screens they
 * may take), edited in the same form, polled now, and removed. The areas come from each alert (polygons, circles, geocode
 * tags): the feed only narrows which screens it may take. Configuring needs Overrides_Edit.
 */
import { useState } from 'react';
import { AsyncList, ErrorState } from '../components/states';
import { graphql } from '../gql';
import type { CapFeedInput, CapSeverity } from '../gql/graphql';
import { gql } from '../lib/api';
import { plural, theLast, when } from '../lib/format';
import { accepted, handleSubmit, type Payload, useAction } from '../lib/use-action';
import { useQuery } from '../lib/use-query';
import { RecordTable } from '../components/record-table';

const CapFeedList = graphql(`
  query CapFeedList {
    capFeeds {
      id
      name
      url
      enabled
      severities
      events
      target {
        all
        tags
        groupIds
        deviceIds
      }
      pollSeconds
      configuredBy
      lastPolledAt
      lastError
      alerts(limit: 5) {
        identifier
        event
        severity
        headline
        outcome
        detail
        receivedAt
      }
    }
  }
`);

const CreateCapFeed = graphql(`
  mutation ConsoleCreateCapFeed($input: CapFeedInput!) {
    createCapFeed(input: $input) {
      success
      error
      errorField
    }
  }
`);

const UpdateCapFeed = graphql(`
  mutation ConsoleUpdateCapFeed($id: ID!, $input: CapFeedUpdateInput!) {
    updateCapFeed(id: $id, input: $input) {
      success
      error
      errorField
    }
  }
`);

const DeleteCapFeed = graphql(`
  mutation ConsoleDeleteCapFeed($id: ID!) {
    deleteCapFeed(id: $id) {
      success
      error
    }
  }
`);

const PollCapFeed = graphql(`
  mutation ConsolePollCapFeed($id: ID!) {
    pollCapFeed(id: $id) {
      success
      error
    }
  }
`);

const SEVERITIES = ['Extreme', 'Severe', 'Moderate', 'Minor', 'Unknown'] as CapSeverity[];

interface Form {
  name: string;
  url: string;
  severities: CapSeverity[];
  tags: string;
  enabled: boolean;
}
const EMPTY: Form = { name: '', url: '', severities: SEVERITIES.slice(0, 2), tags: '', enabled: true };

export function CapFeeds({ canEdit }: { canEdit: boolean }) {
  const q = useQuery(() => gql(CapFeedList), []);
  const [form, setForm] = useState<Form>(EMPTY);
  /** The feed being edited in the form (null: the form adds one). */
  const [editing, setEditing] = useState<{ id: string; name: string } | null>(null);
  const { busy, error, run } = useAction();
  const act = (f: () => Promise<Payload | null | undefined>) =>
    run(async () => {
      accepted(await f());
      q.reload();
    });
  const add = async () => {
    const tags = form.tags
      .split(/[\s,]+/)
      .map((t) => t.trim())
      .filter(Boolean);
    const input: CapFeedInput = {
      name: form.name,
      url: form.url.trim(),
      severities: form.severities,
      enabled: form.enabled,
      target: tags.length ? { tags } : null,
    };
    const saved = editing
      ? await act(async () => (await gql(UpdateCapFeed, { id: editing.id, input })).updateCapFeed)
      : await act(async () => (await gql(CreateCapFeed, { input })).createCapFeed);
    if (saved) {
      setForm(EMPTY);
      setEditing(null);
    }
  };
  const edit = (f: { id: string; name: string; url: string; severities: CapSeverity[]; enabled: boolean; target?: { tags: string[] } | null }) => {
    setEditing({ id: f.id, name: f.name });
    setForm({ name: f.name, url: f.url, severities: [...f.severities], tags: (f.target?.tags ?? []).join(', '), enabled: f.enabled });
    document.getElementById('cap-name')?.focus();
  };
  return (
    <section aria-labelledby="cap-h" className="cap-feeds">
      <h2 id="cap-h">CAP alert feeds</h2>
      <p className="muted">
        A warning system's CAP 1.2 feed starts an override on the screens inside each alert's areas (by location, or a geocode tag such as SAME:006037), and its
        cancel ends it.
      </p>
      {canEdit && (
        <form className="card stack" aria-labelledby="cap-new-h" onSubmit={handleSubmit(add)}>
          <h3 id="cap-new-h">{editing ? `Edit ${editing.name}` : 'Add a feed'}</h3>
          <label>
            Feed name{' '}
            <input id="cap-name" required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} placeholder="National warnings" />
          </label>
          <label>
            Feed URL{' '}
            <input
              type="url"
              required
              value={form.url}
              onChange={(e) => setForm({ ...form, url: e.target.value })}
              placeholder="https://alerts.example.gov/cap.atom"
            />
          </label>
          <fieldset>
            <legend>Severities that take screens over</legend>
            {SEVERITIES.map((s) => (
              <label key={s} className="inline">
                <input
                  type="checkbox"
                  checked={form.severities.includes(s)}
                  onChange={(e) => setForm({ ...form, severities: e.target.checked ? [...form.severities, s] : form.severities.filter((x) => x !== s) })}
                />{' '}
                {s}
              </label>
            ))}
          </fieldset>
          <label>
            Only screens tagged (comma-separated; empty: every screen in an alert's area){' '}
            <input value={form.tags} onChange={(e) => setForm({ ...form, tags: e.target.value })} placeholder="lobby" />
          </label>
          <label className="inline">
            <input type="checkbox" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.target.checked })} /> poll it (read at once, then every
            minute)
          </label>
          <div className="actions">
            <button type="submit" className="primary" disabled={busy || !form.severities.length}>
              {editing ? 'Save changes' : 'Add feed'}
            </button>
            {editing && (
              <button
                type="button"
                onClick={() => {
                  setEditing(null);
                  setForm(EMPTY);
                }}
              >
                Cancel editing
              </button>
            )}
          </div>
        </form>
      )}
      {error && <ErrorState error={error} />}
      <AsyncList
        q={q}
        what="CAP feeds"
        of={(d) => d.capFeeds}
        empty="No CAP feeds"
        hint={canEdit ? 'Add your warning system’s feed above to take screens over for its alerts.' : 'An owner or administrator can add one.'}
      >
        {(feeds) =>
          feeds.map((f) => (
            <section key={f.id} className="card" aria-labelledby={`cap-${f.id}`}>
              <div className="title-row">
                <h3 id={`cap-${f.id}`}>{f.name}</h3>
                <span className={`verdict ${f.lastError ? 'v-active' : f.enabled ? 'v-playing' : ''}`}>
                  {f.lastError ? 'failing' : f.enabled ? 'polling' : 'disabled'}
                </span>
                {canEdit && (
                  <>
                    <button type="button" disabled={busy} onClick={() => void act(async () => (await gql(PollCapFeed, { id: f.id })).pollCapFeed)}>
                      Poll {f.name} now
                    </button>
                    <button type="button" disabled={busy} onClick={() => edit(f)}>
                      Edit {f.name}
                    </button>
                    <button
                      type="button"
                      className="danger"
                      disabled={busy}
                      onClick={() => void act(async () => (await gql(DeleteCapFeed, { id: f.id })).deleteCapFeed)}
                    >
                      Remove {f.name}
                    </button>
                  </>
                )}
              </div>
              <p className="meta">
                <code>{f.url}</code> · {f.severities.join(', ')}
                {f.events.length ? ` · events ${f.events.join(', ')}` : ''} · screens{' '}
                {!f.target || f.target.all
                  ? 'every screen'
                  : [
                      f.target.tags.length && `tagged ${f.target.tags.join(', ')}`,
                      f.target.groupIds.length && plural(f.target.groupIds.length, 'group'),
                      f.target.deviceIds.length && plural(f.target.deviceIds.length, 'chosen screen'),
                    ]
                      .filter(Boolean)
                      .join(', ')}{' '}
                · every {f.pollSeconds} s · acts as {f.configuredBy}
              </p>
              <p data-testid="cap-last-poll">
                {f.lastPolledAt ? `Last poll ${when(f.lastPolledAt)}: ${f.lastError ? `failed: ${f.lastError}` : 'read'}` : 'Not polled yet'}
              </p>
              {f.alerts.length > 0 && (
                <RecordTable caption={<>{theLast(f.alerts.length, 'alert')} it read</>} columns={['Received', 'Alert', 'Severity', 'What it did']}>
                  {f.alerts.map((a) => (
                    <tr key={a.identifier}>
                      <td>{when(a.receivedAt)}</td>
                      <td>{a.headline || a.event}</td>
                      <td>{a.severity}</td>
                      <td>
                        {a.outcome.toLowerCase().replace(/_/g, ' ')}
                        {a.detail ? `: ${a.detail}` : ''}
                      </td>
                    </tr>
                  ))}
                </RecordTable>
              )}
            </section>
          ))
        }
      </AsyncList>
    </section>
  );
}
