/**
 * Schedules: a week calendar for one screen or one schedule group. Each schedule is drawn on the
 * days and hours it plays (overnight windows continue the next morning), labelled with its
 * priority; where two overlap at the same priority the calendar marks a conflict, where one
 * outranks the other it says which wins. Drag down an empty day column (or use the form) to create
 * a schedule for that window; choose a block to edit it. Writes need Schedules edit rights and
 * carry the version read.
 */
import { useMemo, useState, type PointerEvent } from 'react';
import { Async, Empty, ErrorState } from '../components/states';
import { graphql } from '../gql';
import type { ScheduleInput, SchedulePriorityType, WeekSchedulesQuery } from '../gql/graphql';
import { gql } from '../lib/api';
import { plural } from '../lib/format';
import { useRights } from '../lib/permissions';
import { useQuery } from '../lib/use-query';
import { useAction } from '../lib/use-action';
import { NamedOptions, SaveOrCancel } from '../components/forms';

const Targets = graphql(`
  query ScheduleTargets {
    device(limit: 200, order: [{ name: ASC }]) {
      id
      name
    }
    scheduleGroups {
      id
      name
    }
    playlist(limit: 200, order: [{ name: ASC }]) {
      id
      name
    }
  }
`);

const WeekSchedules = graphql(`
  query WeekSchedules($deviceId: String, $groupId: [String!]) {
    schedule(deviceId: $deviceId, groupId: $groupId, limit: 200) {
      id
      name
      type
      startDate
      endDate
      startTime
      endTime
      monday
      tuesday
      wednesday
      thursday
      friday
      saturday
      sunday
      priority
      playlistId
      templateId
      groupId
      version
      devices {
        id
      }
    }
  }
`);

const CreateSchedule = graphql(`
  mutation CreateWeekSchedule($input: ScheduleInput!) {
    createSchedule(input: $input) {
      success
      error
    }
  }
`);

const UpdateSchedule = graphql(`
  mutation UpdateWeekSchedule($id: ID!, $input: ScheduleInput!) {
    updateSchedule(id: $id, input: $input) {
      success
      error
    }
  }
`);

type Schedule = NonNullable<WeekSchedulesQuery['schedule']>[number];
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
type Day = (typeof DAYS)[number];
const PRIORITIES: SchedulePriorityType[] = ['LOWEST', 'LOW', 'NORMAL', 'HIGH', 'HIGHEST'] as SchedulePriorityType[];
const HOUR_PX = 22;

const minutes = (t: string | null | undefined, fallback: number) => {
  if (!t) return fallback;
  const [h, m] = t.split(':').map(Number);
  return h! * 60 + (m ?? 0);
};
const hhmm = (min: number) => `${String(Math.floor(min / 60)).padStart(2, '0')}:${String(min % 60).padStart(2, '0')}`;
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

function mondayOf(d: Date): Date {
  const m = new Date(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()));
  m.setUTCDate(m.getUTCDate() - ((m.getUTCDay() + 6) % 7));
  return m;
}

export interface Block {
  schedule: Schedule;
  day: number;
  from: number;
  to: number;
  lane: number;
  lanes: number;
  conflict: boolean;
}

/** The week's blocks per day (dates limit them), with lanes for side-by-side overlaps and same-priority conflicts. */
export function weekBlocks(schedules: Schedule[], monday: Date): Block[] {
  const out: Block[] = [];
  const active = (s: Schedule, day: number) => {
    const date = new Date(monday.getTime() + day * 86_400_000);
    const d = isoDay(date);
    return s[DAYS[day]!] && (!s.startDate || s.startDate.slice(0, 10) <= d) && (!s.endDate || s.endDate.slice(0, 10) >= d);
  };
  for (const s of schedules) {
    const from = minutes(s.startTime, 0);
    const to = minutes(s.endTime, 1440) || 1440;
    for (let day = 0; day < 7; day++) {
      if (to > from) {
        if (active(s, day)) out.push({ schedule: s, day, from, to, lane: 0, lanes: 1, conflict: false });
      } else {
        // Overnight: the evening on the day it starts, the morning after on the next day.
        if (active(s, day)) out.push({ schedule: s, day, from, to: 1440, lane: 0, lanes: 1, conflict: false });
        if (day > 0 && active(s, day - 1)) out.push({ schedule: s, day, from: 0, to, lane: 0, lanes: 1, conflict: false });
      }
    }
  }
  for (let day = 0; day < 7; day++) {
    const today = out.filter((b) => b.day === day).sort((a, b) => a.from - b.from);
    const laneEnds: number[] = [];
    for (const b of today) {
      let lane = laneEnds.findIndex((end) => end <= b.from);
      if (lane < 0) lane = laneEnds.length;
      laneEnds[lane] = b.to;
      b.lane = lane;
    }
    for (const b of today) {
      const overlapping = today.filter((o) => o !== b && o.from < b.to && b.from < o.to);
      b.lanes = Math.max(1, ...overlapping.map((o) => o.lane + 1), b.lane + 1);
      b.conflict = overlapping.some((o) => o.schedule.priority === b.schedule.priority && o.schedule.id !== b.schedule.id);
    }
  }
  return out;
}

interface Draft {
  id?: string;
  version?: number;
  name: string;
  playlistId: string;
  priority: SchedulePriorityType;
  days: Record<Day, boolean>;
  startTime: string;
  endTime: string;
  startDate: string;
  endDate: string;
  deviceIds: string[];
  groupId?: string | null;
}

function draftOf(s: Schedule): Draft {
  return {
    id: s.id,
    version: s.version,
    name: s.name,
    playlistId: s.playlistId ?? '',
    priority: s.priority,
    days: Object.fromEntries(DAYS.map((d) => [d, s[d]])) as Record<Day, boolean>,
    startTime: (s.startTime ?? '00:00').slice(0, 5),
    endTime: (s.endTime ?? '24:00').slice(0, 5),
    startDate: s.startDate?.slice(0, 10) ?? '',
    endDate: s.endDate?.slice(0, 10) ?? '',
    deviceIds: s.devices.map((d) => d.id),
    groupId: s.groupId,
  };
}

function ScheduleForm({
  draft,
  playlists,
  onDone,
  onCancel,
}: {
  draft: Draft;
  playlists: { id: string; name: string }[];
  onDone: () => void;
  onCancel: () => void;
}) {
  const [d, setD] = useState(draft);
  const { busy, error, submit } = useAction();
  const save = submit(async () => {
    const input: ScheduleInput = {
      name: d.name,
      type: 'PLAYLIST' as ScheduleInput['type'],
      playlistId: d.playlistId,
      priority: d.priority,
      ...d.days,
      startTime: d.startTime,
      endTime: d.endTime,
      startDate: d.startDate || null,
      endDate: d.endDate || null,
      deviceIds: d.deviceIds,
      groupId: d.groupId ?? null,
      ...(d.version ? { expectedVersion: d.version } : {}),
    };
    const r = d.id ? (await gql(UpdateSchedule, { id: d.id, input })).updateSchedule : (await gql(CreateSchedule, { input })).createSchedule;
    if (!r?.success) throw new Error(r?.error ?? 'the schedule was refused');
    onDone();
  });
  return (
    <form className="card stack" aria-labelledby="sched-form-h" onSubmit={save}>
      <h2 id="sched-form-h">{d.id ? `Edit ${draft.name}` : 'New schedule'}</h2>
      <label>
        Name <input required value={d.name} onChange={(e) => setD({ ...d, name: e.target.value })} />
      </label>
      <label>
        Playlist{' '}
        <select required value={d.playlistId} onChange={(e) => setD({ ...d, playlistId: e.target.value })}>
          <option value="">Choose…</option>
          <NamedOptions items={playlists} />
        </select>
      </label>
      <label>
        Priority{' '}
        <select value={d.priority} onChange={(e) => setD({ ...d, priority: e.target.value as SchedulePriorityType })}>
          {PRIORITIES.map((p) => (
            <option key={p} value={p}>
              {p.toLowerCase()}
            </option>
          ))}
        </select>
      </label>
      <fieldset>
        <legend>Days</legend>
        {DAYS.map((day) => (
          <label key={day} className="inline">
            <input type="checkbox" checked={d.days[day]} onChange={(e) => setD({ ...d, days: { ...d.days, [day]: e.target.checked } })} /> {day.slice(0, 3)}
          </label>
        ))}
      </fieldset>
      <label>
        From <input type="time" value={d.startTime} onChange={(e) => setD({ ...d, startTime: e.target.value })} />
      </label>
      <label>
        Until (24:00 = end of day; before "from" runs overnight){' '}
        <input pattern="([01]\d|2[0-3]):[0-5]\d|24:00" value={d.endTime} onChange={(e) => setD({ ...d, endTime: e.target.value })} />
      </label>
      <label>
        First day <input type="date" value={d.startDate} onChange={(e) => setD({ ...d, startDate: e.target.value })} />
      </label>
      <label>
        Last day <input type="date" value={d.endDate} onChange={(e) => setD({ ...d, endDate: e.target.value })} />
      </label>
      {error && <ErrorState error={error} />}
      <SaveOrCancel disabled={busy} onCancel={onCancel}>
        {busy ? 'Saving…' : d.id ? 'Save changes' : 'Create schedule'}
      </SaveOrCancel>
    </form>
  );
}

function Week({ target, playlists }: { target: { deviceId?: string; groupId?: string }; playlists: { id: string; name: string }[] }) {
  const canEdit = useRights().can('Schedules', 'edit');
  const [monday, setMonday] = useState(() => mondayOf(new Date()));
  const q = useQuery(
    () => gql(WeekSchedules, { deviceId: target.deviceId ?? null, groupId: target.groupId ? [target.groupId] : null }),
    [target.deviceId, target.groupId],
  );
  const blocks = useMemo(() => weekBlocks(q.data?.schedule ?? [], monday), [q.data, monday]);
  const [draft, setDraft] = useState<Draft>();
  const [drag, setDrag] = useState<{ day: number; from: number; to: number }>();
  const blank = (day: number, from: number, to: number): Draft => ({
    name: '',
    playlistId: '',
    priority: 'NORMAL' as SchedulePriorityType,
    days: Object.fromEntries(DAYS.map((d, i) => [d, i === day])) as Record<Day, boolean>,
    startTime: hhmm(from),
    endTime: hhmm(to),
    startDate: '',
    endDate: '',
    deviceIds: target.deviceId ? [target.deviceId] : [],
    groupId: target.groupId,
  });
  const at = (e: PointerEvent<HTMLElement>) =>
    Math.max(0, Math.min(1440, Math.round(((e.clientY - e.currentTarget.getBoundingClientRect().top) / HOUR_PX) * 2) * 30));
  const conflicts = blocks.filter((b) => b.conflict);
  return (
    <>
      <div className="title-row">
        <button type="button" onClick={() => setMonday(new Date(monday.getTime() - 7 * 86_400_000))}>
          ← Previous week
        </button>
        <strong>Week of {monday.toISOString().slice(0, 10)}</strong>
        <button type="button" onClick={() => setMonday(new Date(monday.getTime() + 7 * 86_400_000))}>
          Next week →
        </button>
        {canEdit && (
          <button type="button" className="primary" onClick={() => setDraft(blank(0, 9 * 60, 17 * 60))}>
            New schedule
          </button>
        )}
      </div>
      <Async q={q} what="schedules">
        {(d) => (
          <>
            {!d.schedule?.length && (
              <Empty title="No schedule covers this yet">
                <p>{canEdit ? 'Drag down a day column (its free right strip) to draw one, or choose New schedule.' : 'An editor can create one.'}</p>
              </Empty>
            )}
            {conflicts.length > 0 && (
              <p className="state state-error" role="note">
                {plural(new Set(conflicts.map((c) => c.schedule.id)).size, 'schedule')}{' '}
                {new Set(conflicts.map((c) => c.schedule.id)).size === 1 ? 'overlaps' : 'overlap'} another of the same priority (marked ⚠): which plays there is
                not decided by priority; give one a higher priority.
              </p>
            )}
            <div className="week" role="group" aria-label={`Week of ${monday.toISOString().slice(0, 10)}`}>
              <div className="hours" aria-hidden="true">
                {Array.from({ length: 24 }, (_, h) => (
                  <span key={h} style={{ height: HOUR_PX }}>
                    {String(h).padStart(2, '0')}
                  </span>
                ))}
              </div>
              {DAYS.map((day, i) => (
                <div key={day} className="day" role="group" aria-label={`${day} ${new Date(monday.getTime() + i * 86_400_000).toISOString().slice(5, 10)}`}>
                  <div className="day-head" aria-hidden="true">
                    {day.slice(0, 3)} {new Date(monday.getTime() + i * 86_400_000).toISOString().slice(5, 10)}
                  </div>
                  <div
                    className="day-body"
                    style={{ height: 24 * HOUR_PX }}
                    onPointerDown={(e) => {
                      if (!canEdit || e.target !== e.currentTarget) return;
                      const m = at(e);
                      setDrag({ day: i, from: m, to: m + 60 });
                    }}
                    onPointerMove={(e) => drag?.day === i && setDrag({ ...drag, to: Math.max(drag.from + 30, at(e)) })}
                    onPointerUp={() => {
                      if (drag) setDraft(blank(drag.day, drag.from, Math.min(1440, drag.to)));
                      setDrag(undefined);
                    }}
                  >
                    {drag?.day === i && (
                      <div className="block drawing" style={{ top: (drag.from / 60) * HOUR_PX, height: ((drag.to - drag.from) / 60) * HOUR_PX }} />
                    )}
                    {blocks
                      .filter((b) => b.day === i)
                      .map((b) => (
                        <button
                          type="button"
                          key={`${b.schedule.id}-${b.from}`}
                          className={`block p-${b.schedule.priority.toLowerCase()}${b.conflict ? ' conflict' : ''}`}
                          style={{
                            top: (b.from / 60) * HOUR_PX,
                            height: Math.max(14, ((b.to - b.from) / 60) * HOUR_PX),
                            // 85%: a free strip on the right of every day stays open for drawing.
                            left: `${(b.lane / b.lanes) * 85}%`,
                            width: `${85 / b.lanes}%`,
                          }}
                          title={`${b.schedule.name}: ${hhmm(b.from)}–${hhmm(b.to)}, priority ${b.schedule.priority.toLowerCase()}`}
                          onClick={() => canEdit && setDraft(draftOf(b.schedule))}
                        >
                          {b.conflict ? '⚠ ' : ''}
                          {b.schedule.name} <small>{b.schedule.priority.toLowerCase()}</small>
                        </button>
                      ))}
                  </div>
                </div>
              ))}
            </div>
          </>
        )}
      </Async>
      {draft && (
        <ScheduleForm
          key={draft.id ?? `${draft.startTime}-${Object.values(draft.days).join()}`}
          draft={draft}
          playlists={playlists}
          onCancel={() => setDraft(undefined)}
          onDone={() => {
            setDraft(undefined);
            q.reload();
          }}
        />
      )}
    </>
  );
}

export function SchedulesPage() {
  const q = useQuery(() => gql(Targets), []);
  const [target, setTarget] = useState('');
  return (
    <section>
      <h1>Schedules</h1>
      <Async q={q} what="screens and schedule groups">
        {(d) => {
          const current = target || (d.device?.[0] ? `d:${d.device[0].id}` : d.scheduleGroups?.[0] ? `g:${d.scheduleGroups[0].id}` : '');
          return !current ? (
            <Empty title="No screens yet">
              <p>Pair a screen first; its week shows here.</p>
            </Empty>
          ) : (
            <>
              <div className="filters">
                <label>
                  Screen or schedule group{' '}
                  <select value={current} onChange={(e) => setTarget(e.target.value)}>
                    <optgroup label="Screens">
                      <NamedOptions items={d.device} prefix="d:" />
                    </optgroup>
                    <optgroup label="Schedule groups">
                      <NamedOptions items={d.scheduleGroups} prefix="g:" />
                    </optgroup>
                  </select>
                </label>
              </div>
              <Week
                key={current}
                target={current.startsWith('d:') ? { deviceId: current.slice(2) } : { groupId: current.slice(2) }}
                playlists={d.playlist ?? []}
              />
            </>
          );
        }}
      </Async>
    </section>
  );
}
