/**
 * One screen: what it plays now and why (every schedule's verdict; a display dark by its power
 * schedule says so, with until when), the next 24 hours, its ping health (ScreenHealth), its last
 * screenshot, and commands with their delivery state (sending needs Devices edit rights).
 */
import { useEffect, useState } from 'react';
import { Async, AsyncList, Empty, ErrorState } from '../components/states';
import { graphql } from '../gql';
import { gql } from '../lib/api';
import { useRights } from '../lib/permissions';
import { theLast } from '../lib/format';
import { Link } from '../lib/router';
import { useQuery } from '../lib/use-query';
import { ScreenHealth } from './ScreenHealth';
import { RecordTable } from '../components/record-table';
import { Chips } from '../components/chips';

const ScreenDetail = graphql(`
  query ScreenDetail($id: String!) {
    device(id: [$id], includeSnap: true) {
      id
      name
      isOnline
      tags
      groupName
      timezone
      snap
      pingData {
        timestamp
        playerVersion
        cpuUsage
        memoryUsage
        ipAddress
      }
    }
  }
`);

const ScreenPlaying = graphql(`
  query ScreenPlaying($id: ID!, $from: String!, $to: String!) {
    nowPlaying(deviceId: $id) {
      localTime
      timezone
      nextChange
      reason
      schedule {
        id
        name
      }
      content {
        type
        playlist {
          id
          name
        }
        template {
          id
          name
        }
      }
      considered {
        matched
        verdict
        reason
        schedule {
          id
          name
          priority
        }
      }
    }
    devicePower(deviceId: $id) {
      displayOn
      until
      reason
      schedule {
        name
      }
    }
    deviceTimeline(deviceId: $id, from: $from, to: $to) {
      segments {
        from
        to
        schedule {
          id
          name
        }
      }
    }
  }
`);

const ScreenCommands = graphql(`
  query ScreenCommands($id: String!) {
    deviceCommands(deviceId: $id, limit: 10) {
      id
      command
      arg
      status
      queuedOn
      completedOn
      error
    }
  }
`);

const SendCommand = graphql(`
  mutation SendCommand($id: String!, $command: String!) {
    sendDeviceCommand(deviceId: $id, commands: [{ command: $command }]) {
      success
      error
    }
  }
`);

const COMMANDS = ['refresh', 'screenshot', 'restart', 'display_on', 'display_off'];
const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** `onZone` learns the zone nowPlaying used (the screen's own, else the account's), for the page's header. */
function Playing({ id, onZone }: { id: string; onZone: (zone: string) => void }) {
  const [range] = useState(() => {
    const from = new Date();
    return { from: from.toISOString(), to: new Date(from.getTime() + 86_400_000).toISOString() };
  });
  const q = useQuery(() => gql(ScreenPlaying, { id, ...range }), [id]);
  const zone = q.data?.nowPlaying?.timezone;
  useEffect(() => {
    if (zone) onZone(zone);
  }, [zone, onZone]);
  return (
    <Async q={q} what="what this screen plays">
      {({ nowPlaying: np, deviceTimeline: tl, devicePower: power }) => (
        <>
          <section aria-labelledby="now-h" className="card">
            <h2 id="now-h">Now playing</h2>
            {power && !power.displayOn && (
              // The API's words (until HH:MM on the screen's clock; nowPlaying's reason says the same).
              <p className="state power-off" role="note" data-testid="display-off">
                <strong>{power.reason.charAt(0).toUpperCase() + power.reason.slice(1)}</strong>
                {power.schedule ? ` (${power.schedule.name}, screen time)` : ''}: the screen is dark on purpose, plays nothing and raises no offline alert
                {power.until ? ` until ${when(power.until)} your time` : ''}.
              </p>
            )}
            {!np ? (
              <Empty title="No answer for this screen" />
            ) : (
              <>
                <p className="now" data-testid="now-playing">
                  {np.schedule ? (
                    <>
                      <strong>{np.content?.playlist?.name ?? np.content?.template?.name ?? 'content'}</strong> from schedule <strong>{np.schedule.name}</strong>
                    </>
                  ) : (
                    <strong>Nothing scheduled now</strong>
                  )}{' '}
                  <span className="muted">
                    {np.reason} (local time {np.localTime}, {np.timezone}; next change {np.nextChange ? when(np.nextChange) : 'none ahead'})
                  </span>
                </p>
                {np.considered.length === 0 ? (
                  <Empty title="No schedule covers this screen">
                    <p>Create a schedule for this screen or its group to give it content.</p>
                  </Empty>
                ) : (
                  <RecordTable caption={<>Why: every schedule of this screen and its verdict</>} columns={['Schedule', 'Priority', 'Verdict', 'Reason']}>
                    {np.considered.map((c) => (
                      <tr key={c.schedule.id} className={c.matched ? 'winner' : undefined}>
                        <td>{c.schedule.name}</td>
                        <td>{c.schedule.priority.toLowerCase()}</td>
                        <td>
                          <span className={`verdict v-${c.verdict.toLowerCase()}`}>{c.verdict.toLowerCase().replace(/_/g, ' ')}</span>
                        </td>
                        <td>{c.reason}</td>
                      </tr>
                    ))}
                  </RecordTable>
                )}
              </>
            )}
          </section>
          <section aria-labelledby="next-h" className="card">
            <h2 id="next-h">Next 24 hours</h2>
            {!tl?.segments.length ? (
              <Empty title="No timeline" />
            ) : (
              <ol className="timeline">
                {tl.segments.map((s) => (
                  <li key={s.from} className={s.schedule ? '' : 'idle'}>
                    <time dateTime={s.from}>{when(s.from)}</time> – <time dateTime={s.to}>{when(s.to)}</time>: {s.schedule ? s.schedule.name : 'nothing plays'}
                  </li>
                ))}
              </ol>
            )}
          </section>
        </>
      )}
    </Async>
  );
}

function Commands({ id }: { id: string }) {
  const rights = useRights();
  const q = useQuery(() => gql(ScreenCommands, { id }), [id]);
  const [sending, setSending] = useState<string>();
  const [error, setError] = useState<Error>();
  const send = async (command: string) => {
    setSending(command);
    setError(undefined);
    try {
      const r = await gql(SendCommand, { id, command });
      if (!r.sendDeviceCommand?.success) throw new Error(r.sendDeviceCommand?.error ?? 'the command was refused');
      q.reload();
    } catch (e) {
      setError(e instanceof Error ? e : new Error(String(e)));
    } finally {
      setSending(undefined);
    }
  };
  return (
    <section aria-labelledby="cmd-h" className="card">
      <h2 id="cmd-h">Commands</h2>
      {rights.can('Devices', 'edit') && (
        <div className="actions" role="group" aria-label="Send a command">
          {COMMANDS.map((c) => (
            <button type="button" key={c} disabled={!!sending} onClick={() => void send(c)}>
              {sending === c ? `Sending ${c}…` : c.replace('_', ' ')}
            </button>
          ))}
        </div>
      )}
      {error && <ErrorState error={error} />}
      <AsyncList q={q} what="commands" of={(d) => d.deviceCommands} empty="No commands sent to this screen yet">
        {(commands) => (
          <RecordTable caption={theLast(commands.length, 'command')} columns={['Command', 'State', 'Queued', 'Completed']}>
            {commands.map((c) => (
              <tr key={c.id}>
                <td>
                  {c.command}
                  {c.arg ? ` ${c.arg}` : ''}
                </td>
                <td>
                  {c.status.toLowerCase()}
                  {c.error ? `: ${c.error}` : ''}
                </td>
                <td>{when(c.queuedOn)}</td>
                <td>{when(c.completedOn)}</td>
              </tr>
            ))}
          </RecordTable>
        )}
      </AsyncList>
    </section>
  );
}

export function ScreenPage({ id }: { id: string }) {
  const q = useQuery(() => gql(ScreenDetail, { id }), [id]);
  const [zoneUsed, setZoneUsed] = useState<string>();
  return (
    <section>
      <p>
        <Link to="/screens">← All screens</Link>
      </p>
      <Async q={q} what="the screen">
        {(d) => {
          const s = d.device?.[0];
          if (!s)
            return (
              <Empty title="No such screen">
                <p>
                  It may have been deleted, or belongs to another account. <Link to="/screens">Back to the list</Link>.
                </p>
              </Empty>
            );
          return (
            <>
              <h1>{s.name}</h1>
              <p className="meta">
                <span className={`dot ${s.isOnline ? 'ok' : 'off'}`} aria-hidden="true" />
                {s.isOnline ? 'online' : 'offline'} · last ping {when(s.pingData?.timestamp)} ·{' '}
                <span data-testid="screen-zone">
                  {s.timezone ? `time zone ${s.timezone}` : zoneUsed ? `time zone ${zoneUsed} (the account's; the screen sets none)` : 'time zone…'}
                </span>
                {s.groupName ? ` · group ${s.groupName}` : ''}
                <Chips items={s.tags} />
              </p>
              <div className="columns">
                <div>
                  <Playing id={s.id} onZone={setZoneUsed} />
                  <ScreenHealth id={s.id} />
                </div>
                <div>
                  <section aria-labelledby="shot-h" className="card">
                    <h2 id="shot-h">Last screenshot</h2>
                    {s.snap ? (
                      <img className="snap" src={`data:image/jpeg;base64,${s.snap}`} alt={`Last screenshot of ${s.name}`} />
                    ) : (
                      <Empty title="No screenshot yet">
                        <p>Send the screenshot command; the image appears here once the screen answers.</p>
                      </Empty>
                    )}
                  </section>
                  <Commands id={s.id} />
                </div>
              </div>
            </>
          );
        }}
      </Async>
    </section>
  );
}
