/**
 * Every screen of the account: search, status and tag filters, totals and paging (25 a page); with
 * edit rights, rows to check and bulk actions over the checked rows, the filter, tags or groups.
 * Live from the event stream, without a reload: a shown screen going online or offline changes its
 * row at once (with a status filter, the page is read again, as the screen may leave or join it);
 * its alerts opening or closing, what it plays changing, or any screen added or removed (the total)
 * read the page's alerts or the page again, at most twice a second.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { Chips } from '../components/chips';
import { Pager } from '../components/pager';
import { Async, Empty } from '../components/states';
import { graphql } from '../gql';
import type { DeviceFilterInput } from '../gql/graphql';
import { gql } from '../lib/api';
import { followEvents, type StreamStatus } from '../lib/events';
import { screenState } from '../lib/fleet-state';
import { useRights } from '../lib/permissions';
import { Link } from '../lib/router';
import { useQuery } from '../lib/use-query';
import { BulkActions } from './ScreensBulk';

const PAGE = 25;
/** Events come in bursts (a sweep turns many screens offline at once): one read per burst. */
const SETTLE_MS = 500;

const ScreenList = graphql(`
  query ScreenList($where: DeviceFilterInput, $tag: [String!], $limit: Int, $offset: Int) {
    deviceCount(where: $where, tag: $tag)
    device(where: $where, tag: $tag, limit: $limit, offset: $offset, order: [{ name: ASC }]) {
      id
      name
      isOnline
      tags
      groupName
      timezone
      pingData {
        timestamp
        playerVersion
        currentSchedule
      }
    }
  }
`);

// The open alerts of the page's screens (their state: alerting while online, lib/fleet-state.ts).
const ScreenAlerts = graphql(`
  query ScreenAlerts($ids: [String!]) {
    alert(activeOnly: true, deviceId: $ids, limit: 200) {
      id
      devices {
        id
      }
    }
  }
`);

const STATE_DOT = { online: 'ok', offline: 'off', alerting: 'bad' } as const;

/** A shown screen's online state as the event stream last told it (newer than the page's read). */
interface LiveState {
  isOnline: boolean;
  lastPing?: string;
}

export function ScreensPage() {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<'all' | 'online' | 'offline'>('all');
  const [tag, setTag] = useState('');
  const [page, setPage] = useState(0);
  const rights = useRights();
  const canBulk = rights.can('Devices', 'edit') || rights.can('Schedules', 'edit');
  // Checked rows by id, with their names for the bulk results (they stay checked across pages).
  const [checked, setChecked] = useState<Map<string, string>>(new Map());
  const where: DeviceFilterInput = useMemo(
    () => ({
      ...(search.trim() ? { name: { contains: search.trim() } } : {}),
      ...(status !== 'all' ? { isOnline: { eq: status === 'online' } } : {}),
    }),
    [search, status],
  );
  const checkedIds = useMemo(() => [...checked.keys()], [checked]);
  const check = (rows: { id: string; name: string }[], on: boolean) =>
    setChecked((c) => {
      const next = new Map(c);
      for (const r of rows)
        if (on) next.set(r.id, r.name);
        else next.delete(r.id);
      return next;
    });
  const q = useQuery(() => gql(ScreenList, { where, tag: tag.trim() ? [tag.trim()] : null, limit: PAGE, offset: page * PAGE }), [search, status, tag, page]);
  const names = useMemo(() => new Map([...(q.data?.device ?? []).map((d) => [d.id, d.name] as const), ...checked]), [q.data, checked]);
  const canAlerts = rights.can('Alerts');
  const ids = useMemo(() => (q.data?.device ?? []).map((d) => d.id), [q.data]);
  const alerts = useQuery(() => (canAlerts && ids.length ? gql(ScreenAlerts, { ids }) : Promise.resolve(null)), [canAlerts, ids.join()]);
  const alerting = useMemo(() => new Set(alerts.data?.alert?.flatMap((a) => a.devices.map((d) => d.id)) ?? []), [alerts.data]);
  const [live, setLive] = useState<Map<string, LiveState>>(new Map());
  // A new read of the page knows everything the stream told before it.
  useEffect(() => setLive(new Map()), [q.data]);
  const [stream, setStream] = useState<StreamStatus>({ state: 'connecting' });
  // The stream is followed once per visit; what it needs of the page is read through refs.
  const shown = useRef(new Set<string>());
  shown.current = new Set(ids);
  const statusFilter = useRef(status);
  statusFilter.current = status;
  const reload = q.reload;
  const reloadAlerts = alerts.reload;
  useEffect(() => {
    const timers = new Map<() => void, ReturnType<typeof setTimeout>>();
    const soon = (f: () => void) => {
      if (!timers.has(f))
        timers.set(
          f,
          setTimeout(() => {
            timers.delete(f);
            f();
          }, SETTLE_MS),
        );
    };
    const stop = followEvents((e) => {
      const id = typeof e.data.device_id === 'string' ? e.data.device_id : undefined;
      const onPage = id !== undefined && shown.current.has(id);
      if (e.type === 'device.online' || e.type === 'device.offline') {
        if (statusFilter.current !== 'all') soon(reload);
        else if (onPage) {
          const lastPing = typeof e.data.last_ping_at === 'string' ? e.data.last_ping_at : undefined;
          setLive((m) => new Map(m).set(id, { isOnline: e.type === 'device.online', lastPing }));
        }
      } else if (e.type.startsWith('alert.') && onPage) soon(reloadAlerts);
      else if (((e.type === 'now_playing.changed' || e.type === 'device.updated') && onPage) || e.type === 'device.registered' || e.type === 'device.deleted')
        soon(reload);
    }, setStream);
    return () => {
      stop();
      for (const t of timers.values()) clearTimeout(t);
    };
  }, [reload, reloadAlerts]);
  const filter = (f: () => void) => {
    f();
    setPage(0);
  };
  return (
    <section>
      <div className="title-row">
        <div>
          <h1 className="inline-heading">Screens</h1>{' '}
          <span className={`badge live-${stream.state}`} data-testid="screens-live">
            live updates: {stream.state}
          </span>
        </div>
        <Link to="/pair" className="button">
          Pair a screen
        </Link>
      </div>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Name contains
          <input type="search" value={search} onChange={(e) => filter(() => setSearch(e.target.value))} />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => filter(() => setStatus(e.target.value as typeof status))}>
            <option value="all">All</option>
            <option value="online">Online</option>
            <option value="offline">Offline</option>
          </select>
        </label>
        <label>
          Tag
          <input value={tag} onChange={(e) => filter(() => setTag(e.target.value))} />
        </label>
      </form>
      {canBulk && <BulkActions where={where} tag={tag} checked={checkedIds} names={names} onDone={q.reload} />}
      <Async q={q} what="screens">
        {(d) => {
          const total = d.deviceCount;
          const list = d.device ?? [];
          if (total === 0)
            return (
              <Empty title={search || tag || status !== 'all' ? 'No screen matches these filters' : 'No screens yet'}>
                <p>
                  {search || tag || status !== 'all' ? 'Change or clear the filters above, or ' : 'Open /play on a screen and '}
                  <Link to="/pair">pair it with the code it shows</Link>.
                </p>
              </Empty>
            );
          const pages = Math.ceil(total / PAGE);
          return (
            <>
              <table className="grid">
                <caption>
                  {total} screen{total === 1 ? '' : 's'}
                  {q.loading ? ' (updating…)' : ''}
                </caption>
                <thead>
                  <tr>
                    {canBulk && (
                      <th scope="col">
                        <input
                          type="checkbox"
                          aria-label="Check every screen on this page"
                          checked={list.length > 0 && list.every((s) => checked.has(s.id))}
                          onChange={(e) => check(list, e.target.checked)}
                        />
                      </th>
                    )}
                    <th scope="col">Name</th>
                    <th scope="col">Status</th>
                    <th scope="col">Now playing</th>
                    <th scope="col">Group</th>
                    <th scope="col">Tags</th>
                    <th scope="col">Last ping</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((row) => {
                    const now = live.get(row.id);
                    const s = now ? { ...row, isOnline: now.isOnline, pingData: { ...row.pingData, timestamp: now.lastPing ?? row.pingData?.timestamp } } : row;
                    const state = screenState(s.isOnline, alerting.has(s.id));
                    return (
                      <tr key={s.id}>
                        {canBulk && (
                          <td>
                            <input type="checkbox" aria-label={`Check ${s.name}`} checked={checked.has(s.id)} onChange={(e) => check([s], e.target.checked)} />
                          </td>
                        )}
                        <td>
                          <Link to={`/screens/${encodeURIComponent(s.id)}`}>{s.name}</Link>
                        </td>
                        <td data-testid="screen-state">
                          <span className={`dot ${STATE_DOT[state]}`} aria-hidden="true" />
                          {state}
                        </td>
                        <td>{s.isOnline ? (s.pingData?.currentSchedule ?? 'nothing scheduled') : '—'}</td>
                        <td>{s.groupName ?? '—'}</td>
                        <td>
                          <Chips items={s.tags} />
                        </td>
                        <td>{s.pingData?.timestamp ? new Date(s.pingData.timestamp).toLocaleString() : 'never'}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
              <Pager page={page} pages={pages} onPage={setPage} />
            </>
          );
        }}
      </Async>
    </section>
  );
}
