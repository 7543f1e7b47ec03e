/**
 * Power schedules (docs/fleet-operations.md): when each screen's display is on, per screen, device
 * group or tag: weekly windows (weekdays with on and off times) and exceptions by date (other hours,
 * or off all day). Times are the screen's local time (its time zone, else the account's), as the
 * schedules' are: the API takes no zone of its own. One schedule per target, so saving replaces the
 * target's schedule; editing keeps the target. Writes need Schedules edit rights.
 */
import { useState } from 'react';
import { Async, Empty, ErrorState } from '../components/states';
import { graphql } from '../gql';
import type { PowerScheduleListQuery, PowerScheduleInput, PowerWeekday } from '../gql/graphql';
import { gql } from '../lib/api';
import { plural, when } from '../lib/format';
import { useRights } from '../lib/permissions';
import { accepted, handleSubmit, useAction } from '../lib/use-action';
import { useQuery } from '../lib/use-query';
import { RecordTable } from '../components/record-table';
import { NamedOptions, SaveOrCancel } from '../components/forms';

const PowerScheduleList = graphql(`
  query PowerScheduleList {
    powerSchedules {
      id
      name
      scope
      target
      windows {
        weekdays
        on
        off
      }
      exceptions {
        date
        windows {
          on
          off
        }
      }
      updatedOn
    }
    device(limit: 200, order: [{ name: ASC }]) {
      id
      name
    }
    deviceGroups {
      id
      name
    }
  }
`);

const SetPowerSchedule = graphql(`
  mutation ConsoleSetPowerSchedule($input: PowerScheduleInput!) {
    setPowerSchedule(input: $input) {
      success
      error
      errorField
    }
  }
`);

const DeletePowerSchedule = graphql(`
  mutation ConsoleDeletePowerSchedule($id: ID!) {
    deletePowerSchedule(id: $id) {
      success
      error
    }
  }
`);

type Schedule = PowerScheduleListQuery['powerSchedules'][number];
type Scope = 'DEVICE' | 'GROUP' | 'TAG';
const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as PowerWeekday[];
const short = (d: string) => d.charAt(0) + d.slice(1, 3).toLowerCase();
const END_OF_DAY = '([01]\\d|2[0-3]):[0-5]\\d|24:00';

interface WindowDraft {
  weekdays: PowerWeekday[];
  on: string;
  off: string;
}
interface ExceptionDraft {
  date: string;
  offAllDay: boolean;
  on: string;
  off: string;
  /** Its further stretches that day (set over the API): the form edits the first and keeps these. */
  more: { on: string; off: string }[];
}
interface Draft {
  id?: string;
  name: string;
  scope: Scope;
  target: string;
  windows: WindowDraft[];
  exceptions: ExceptionDraft[];
}

const BLANK: Draft = {
  name: '',
  scope: 'DEVICE',
  target: '',
  windows: [{ weekdays: WEEKDAYS.slice(0, 5), on: '07:00', off: '19:00' }],
  exceptions: [],
};

function draftOf(s: Schedule): Draft {
  return {
    id: s.id,
    name: s.name,
    scope: s.scope as Scope,
    target: s.target,
    windows: s.windows.map((w) => ({ weekdays: [...w.weekdays], on: w.on.slice(0, 5), off: w.off.slice(0, 5) })),
    exceptions: s.exceptions.map((e) => ({
      date: e.date,
      offAllDay: e.windows.length === 0,
      on: e.windows[0]?.on.slice(0, 5) ?? '09:00',
      off: e.windows[0]?.off.slice(0, 5) ?? '17:00',
      more: e.windows.slice(1).map((w) => ({ on: w.on, off: w.off })),
    })),
  };
}

/** "Mon–Fri 07:00–19:00": consecutive weekdays read as a range. */
export function windowText(w: { weekdays: string[]; on: string; off: string }): string {
  const idx = WEEKDAYS.filter((d) => w.weekdays.includes(d)).map((d) => WEEKDAYS.indexOf(d));
  const runs: string[] = [];
  for (let i = 0; i < idx.length;) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1] === idx[j]! + 1) j++;
    const a = short(WEEKDAYS[idx[i]!]!);
    runs.push(
      j - i >= 2
        ? `${a}–${short(WEEKDAYS[idx[j]!]!)}`
        : idx
            .slice(i, j + 1)
            .map((k) => short(WEEKDAYS[k]!))
            .join(', '),
    );
    i = j + 1;
  }
  return `${runs.join(', ') || 'no day'} ${w.on.slice(0, 5)}–${w.off.slice(0, 5)}`;
}

function PowerForm({
  draft,
  devices,
  groups,
  onDone,
  onCancel,
}: {
  draft: Draft;
  devices: { id: string; name: string }[];
  groups: { id: string; name: string }[];
  onDone: () => void;
  onCancel: () => void;
}) {
  const [d, setD] = useState(draft);
  const { busy, error, run } = useAction();
  const setWindow = (i: number, w: Partial<WindowDraft>) => setD({ ...d, windows: d.windows.map((x, k) => (k === i ? { ...x, ...w } : x)) });
  const setException = (i: number, e: Partial<ExceptionDraft>) => setD({ ...d, exceptions: d.exceptions.map((x, k) => (k === i ? { ...x, ...e } : x)) });
  const save = async () => {
    const input: PowerScheduleInput = {
      name: d.name.trim() || null,
      target: d.scope === 'DEVICE' ? { deviceId: d.target } : d.scope === 'GROUP' ? { groupId: d.target } : { tag: d.target.trim() },
      windows: d.windows.map((w) => ({ weekdays: w.weekdays, on: w.on, off: w.off })),
      exceptions: d.exceptions.map((e) => ({ date: e.date, windows: e.offAllDay ? [] : [{ on: e.on, off: e.off }, ...e.more] })),
    };
    if (await run(async () => accepted((await gql(SetPowerSchedule, { input })).setPowerSchedule, 'the power schedule'))) onDone();
  };
  return (
    <form className="card stack" aria-labelledby="power-form-h" onSubmit={handleSubmit(save)}>
      <h2 id="power-form-h">{d.id ? `Edit ${draft.name}` : 'New power schedule'}</h2>
      <p className="muted">Times are each screen's local time (its time zone, else the account's). Setting a schedule for a target that has one replaces it.</p>
      <fieldset disabled={!!d.id}>
        <legend>Screens</legend>
        {(['DEVICE', 'GROUP', 'TAG'] as const).map((s) => (
          <label key={s} className="inline">
            <input type="radio" name="power-scope" checked={d.scope === s} onChange={() => setD({ ...d, scope: s, target: '' })} />{' '}
            {s === 'DEVICE' ? 'one screen' : s === 'GROUP' ? 'a device group' : 'a tag'}
          </label>
        ))}
        {d.scope === 'TAG' ? (
          <label>
            Tag <input required value={d.target} onChange={(e) => setD({ ...d, target: e.target.value })} placeholder="lobby" />
          </label>
        ) : (
          <label>
            {d.scope === 'DEVICE' ? 'Screen' : 'Device group'}{' '}
            <select required value={d.target} onChange={(e) => setD({ ...d, target: e.target.value })}>
              <option value="">Choose…</option>
              <NamedOptions items={d.scope === 'DEVICE' ? devices : groups} />
            </select>
          </label>
        )}
      </fieldset>
      <label>
        Name (optional) <input value={d.name} onChange={(e) => setD({ ...d, name: e.target.value })} placeholder="Office hours" />
      </label>
      {d.windows.map((w, i) => (
        <fieldset key={i}>
          <legend>On window {i + 1}</legend>
          <div role="group" aria-label={`Days of on window ${i + 1}`}>
            {WEEKDAYS.map((day) => (
              <label key={day} className="inline">
                <input
                  type="checkbox"
                  checked={w.weekdays.includes(day)}
                  onChange={(e) => setWindow(i, { weekdays: e.target.checked ? [...w.weekdays, day] : w.weekdays.filter((x) => x !== day) })}
                />{' '}
                {short(day)}
              </label>
            ))}
          </div>
          <label>
            On at <input type="time" required value={w.on} onChange={(e) => setWindow(i, { on: e.target.value })} />
          </label>
          <label>
            Off at (24:00 = midnight; at or before "on": the next day){' '}
            <input required pattern={END_OF_DAY} value={w.off} onChange={(e) => setWindow(i, { off: e.target.value })} />
          </label>
          <button type="button" onClick={() => setD({ ...d, windows: d.windows.filter((_, k) => k !== i) })}>
            Remove on window {i + 1}
          </button>
        </fieldset>
      ))}
      {d.windows.length === 0 && <p className="muted">No weekly window: the display is off except on the exception dates below.</p>}
      <div className="actions">
        <button type="button" onClick={() => setD({ ...d, windows: [...d.windows, { weekdays: [], on: '09:00', off: '17:00' }] })}>
          Add an on window
        </button>
        <button type="button" onClick={() => setD({ ...d, exceptions: [...d.exceptions, { date: '', offAllDay: true, on: '09:00', off: '17:00', more: [] }] })}>
          Add an exception date
        </button>
      </div>
      {d.exceptions.map((x, i) => (
        <fieldset key={i}>
          <legend>Exception {i + 1}</legend>
          <label>
            Date <input type="date" required value={x.date} onChange={(e) => setException(i, { date: e.target.value })} />
          </label>
          <label className="inline">
            <input type="checkbox" checked={x.offAllDay} onChange={(e) => setException(i, { offAllDay: e.target.checked })} /> off all day
          </label>
          {!x.offAllDay && (
            <>
              <label>
                On that day at <input type="time" required value={x.on} onChange={(e) => setException(i, { on: e.target.value })} />
              </label>
              <label>
                Off that day at <input required pattern={END_OF_DAY} value={x.off} onChange={(e) => setException(i, { off: e.target.value })} />
              </label>
              {x.more.length > 0 && <span className="muted">and {x.more.map((w) => `${w.on.slice(0, 5)}–${w.off.slice(0, 5)}`).join(', ')} (kept)</span>}
            </>
          )}
          <button type="button" onClick={() => setD({ ...d, exceptions: d.exceptions.filter((_, k) => k !== i) })}>
            Remove exception {i + 1}
          </button>
        </fieldset>
      ))}
      {error && <ErrorState error={error} />}
      <SaveOrCancel disabled={busy || !d.target.trim()} onCancel={onCancel}>
        {busy ? 'Saving…' : d.id ? 'Save power schedule' : 'Create power schedule'}
      </SaveOrCancel>
    </form>
  );
}

export function PowerPage() {
  const canEdit = useRights().can('Schedules', 'edit');
  const q = useQuery(() => gql(PowerScheduleList), []);
  const [draft, setDraft] = useState<Draft>();
  const { busy, error, run } = useAction();
  const remove = async (s: Schedule) => {
    if (await run(async () => accepted((await gql(DeletePowerSchedule, { id: s.id })).deletePowerSchedule, 'the deletion'))) q.reload();
  };
  return (
    <section>
      <div className="title-row">
        <h1>Power schedules</h1>
        {canEdit && !draft && (
          <button type="button" className="primary" onClick={() => setDraft(BLANK)}>
            New power schedule
          </button>
        )}
      </div>
      <p className="muted">
        When each display is on. Outside these hours screens go dark, play nothing and raise no offline alert; a screen with no schedule (its own, its group's,
        or its tag's) stays on.
      </p>
      <Async q={q} what="power schedules">
        {(d) => {
          const devices = d.device ?? [];
          const groups = d.deviceGroups ?? [];
          const targetName = (s: Schedule) =>
            s.scope === 'DEVICE'
              ? `screen ${devices.find((x) => x.id === s.target)?.name ?? s.target}`
              : s.scope === 'GROUP'
                ? `group ${groups.find((x) => x.id === s.target)?.name ?? s.target}`
                : `tag ${s.target}`;
          return (
            <>
              {draft && (
                <PowerForm
                  key={draft.id ?? 'new'}
                  draft={draft}
                  devices={devices}
                  groups={groups}
                  onCancel={() => setDraft(undefined)}
                  onDone={() => {
                    setDraft(undefined);
                    q.reload();
                  }}
                />
              )}
              {error && <ErrorState error={error} />}
              {d.powerSchedules.length === 0 ? (
                <Empty title="No power schedules: every display is always on">
                  <p>{canEdit ? 'Choose New power schedule to switch screens off at night or on closed days.' : 'An editor can add one.'}</p>
                </Empty>
              ) : (
                <RecordTable
                  caption={plural(d.powerSchedules.length, 'power schedule')}
                  columns={['Name', 'Screens', 'On', 'Exceptions', 'Changed', canEdit && 'Actions']}
                >
                  {d.powerSchedules.map((s) => (
                    <tr key={s.id}>
                      <td>{s.name}</td>
                      <td>{targetName(s)}</td>
                      <td>{s.windows.length ? s.windows.map((w) => <div key={windowText(w)}>{windowText(w)}</div>) : 'off except exceptions'}</td>
                      <td>
                        {s.exceptions.length
                          ? s.exceptions.map((e) => (
                              <div key={e.date}>
                                {e.date}: {e.windows.length ? e.windows.map((w) => `${w.on.slice(0, 5)}–${w.off.slice(0, 5)}`).join(', ') : 'off all day'}
                              </div>
                            ))
                          : '—'}
                      </td>
                      <td>{when(s.updatedOn)}</td>
                      {canEdit && (
                        <td>
                          <div className="actions">
                            <button type="button" disabled={busy} onClick={() => setDraft(draftOf(s))}>
                              Edit {s.name}
                            </button>
                            <button type="button" className="danger" disabled={busy} onClick={() => void remove(s)}>
                              Delete {s.name}
                            </button>
                          </div>
                        </td>
                      )}
                    </tr>
                  ))}
                </RecordTable>
              )}
            </>
          );
        }}
      </Async>
    </section>
  );
}
