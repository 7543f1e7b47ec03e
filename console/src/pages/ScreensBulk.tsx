/**
 * Fleet-wide bulk actions from the Screens page (docs/fleet-operations.md): one change over the
 * screens a selector matches (the checked rows, the page's current filter, tags or device groups),
 * counted first by a dry run, then run as a job whose progress and per-screen results are polled
 * until it finishes. Changing anything after the count asks for a new count, so the job always runs
 * on the selection the operator saw counted. Until it finishes the job can be cancelled (cancelJob):
 * a queued job stops at once, a running one after its current chunk; the screens it changed stay
 * changed and the rest stay as they were (their results read "not changed"). Tags, groups and
 * commands need Devices edit rights; schedule assignment needs Schedules edit rights.
 */
import { useEffect, useState } from 'react';
import { ErrorState } from '../components/states';
import { graphql } from '../gql';
import type { BulkJobProgressQuery, DeviceBulkAction, DeviceBulkJobInput, DeviceFilterInput, DeviceSelectorInput } from '../gql/graphql';
import { gql } from '../lib/api';
import { errorOf, plural } from '../lib/format';
import { useRights } from '../lib/permissions';
import { accepted, handleSubmit, useAction } from '../lib/use-action';
import { Link } from '../lib/router';
import { useQuery } from '../lib/use-query';
import { RecordTable } from '../components/record-table';
import { NamedOptions } from '../components/forms';

const BulkChoices = graphql(`
  query BulkChoices($schedules: Boolean!) {
    deviceGroups {
      id
      name
    }
    schedule(limit: 200) @include(if: $schedules) {
      id
      name
    }
  }
`);

const StartBulk = graphql(`
  mutation ConsoleStartBulk($input: DeviceBulkJobInput!) {
    startDeviceBulkJob(input: $input) {
      success
      error
      errorField
      jobId
      dryRun {
        targets
        notFound
        sample {
          id
          name
        }
        notFoundSample
      }
    }
  }
`);

const BulkJobProgress = graphql(`
  query BulkJobProgress($id: ID!) {
    job(id: $id) {
      ...JobProgressFields
    }
    deviceBulkJobResults(jobId: $id, limit: 100) {
      deviceId
      state
      error
    }
  }
`);

const CancelBulkJob = graphql(`
  mutation ConsoleCancelJob($id: ID!) {
    cancelJob(id: $id) {
      success
      error
      errorField
      job {
        id
        state
      }
    }
  }
`);

type Who = 'checked' | 'filter' | 'tags' | 'groups';
const ACTIONS: { value: DeviceBulkAction; label: string; schedules?: boolean }[] = [
  { value: 'ADD_TAGS' as DeviceBulkAction, label: 'Add tags' },
  { value: 'REMOVE_TAGS' as DeviceBulkAction, label: 'Remove tags' },
  { value: 'MOVE_TO_GROUP' as DeviceBulkAction, label: 'Move to a device group' },
  { value: 'SEND_COMMANDS' as DeviceBulkAction, label: 'Send a command' },
  { value: 'ASSIGN_SCHEDULE' as DeviceBulkAction, label: 'Add to a schedule', schedules: true },
  { value: 'UNASSIGN_SCHEDULE' as DeviceBulkAction, label: 'Remove from a schedule', schedules: true },
];
const COMMANDS = ['refresh', 'screenshot', 'restart', 'display_on', 'display_off', 'clear_cache'];
const FINISHED = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);
/** How often a running job is read again: a 10,000-screen job takes seconds, so this shows it move. */
const POLL_MS = 1000;
const list = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((t) => t.trim())
    .filter(Boolean);

interface Props {
  /** The Screens page's filter as it stands (name, status) and its tag box. */
  where: DeviceFilterInput;
  tag: string;
  checked: string[];
  names: Map<string, string>;
  onDone: () => void;
}

function Progress({ id, names, onFinished }: { id: string; names: Map<string, string>; onFinished: () => void }) {
  const [data, setData] = useState<BulkJobProgressQuery>();
  const [error, setError] = useState<Error>();
  // Set once the server took the cancel.
  const [cancel, setCancel] = useState(false);
  const cancelling = useAction();
  // A new read now (not at the next poll): a queued job is cancelled by the answer already.
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        const r = await gql(BulkJobProgress, { id });
        if (!live) return;
        setData(r);
        if (r.job && FINISHED.has(r.job.state)) onFinished();
        else timer = setTimeout(() => void read(), POLL_MS);
      } catch (e) {
        if (live) setError(errorOf(e));
      }
    };
    void read();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id, onFinished, tick]);
  if (error) return <ErrorState error={error} />;
  const job = data?.job;
  const finished = !!job && FINISHED.has(job.state);
  const stop = () =>
    cancelling.run(async () => {
      accepted((await gql(CancelBulkJob, { id })).cancelJob, 'the cancel');
      setCancel(true);
      setTick((t) => t + 1);
    });
  const cancelControl = !finished && (
    <button type="button" className="danger" disabled={cancelling.busy || cancel} onClick={() => void stop()}>
      Cancel the job
    </button>
  );
  if (!job)
    return (
      <div className="actions">
        <p role="status">Starting the job…</p>
        {cancelControl}
        {cancelling.error && <ErrorState error={cancelling.error} title="Could not cancel the job." />}
      </div>
    );
  const total = job.progress.rowsTotal;
  const results = data?.deviceBulkJobResults ?? [];
  const notChanged = job.state === 'CANCELLED' ? Math.max(0, (total ?? 0) - job.progress.rowsDone) : 0;
  return (
    <div className="stack" aria-labelledby="bulk-job-h">
      <h3 id="bulk-job-h">Job {job.state.toLowerCase()}</h3>
      <span className="muted">
        Job id <code data-testid="bulk-job-id">{job.id}</code> (GET /jobs/{'{id}'} reads it too)
      </span>
      {total == null && job.state === 'CANCELLED' ? (
        // Cancelled while queued: it never counted its screens, so there is no "0 of …" to show.
        <p data-testid="bulk-progress">Not started: cancelled while it waited in the queue.</p>
      ) : (
        <label>
          <span data-testid="bulk-progress" aria-live="polite">
            {job.progress.rowsDone.toLocaleString()} of {total == null ? '…' : plural(total, 'screen')} done, {job.progress.rowsFailed.toLocaleString()} failed
          </span>
          <progress max={total || 1} value={job.progress.rowsDone} />
        </label>
      )}
      {cancelControl}
      {cancelling.error && <ErrorState error={cancelling.error} title="Could not cancel the job." />}
      <p role="status" data-testid="bulk-cancel">
        {cancel && !finished ? 'Cancel asked: the job stops after the chunk it is writing.' : ''}
        {cancel && finished && job.state !== 'CANCELLED' ? `The job ${job.state.toLowerCase()} before the cancel took effect: nothing was undone.` : ''}
        {job.state === 'CANCELLED'
          ? job.progress.rowsDone === 0
            ? 'Cancelled before it changed any screen.'
            : `Cancelled: the screens done keep the change; ${plural(notChanged, 'screen was', 'screens were')} not changed.`
          : ''}
      </p>
      {job.error && job.state !== 'CANCELLED' && <p className="state state-error">{job.error}</p>}
      {results.length > 0 && (
        <RecordTable
          caption={<>Per-screen results{total != null && total > results.length ? ` (the first ${results.length} of ${total.toLocaleString()})` : ''}</>}
          columns={['Screen', 'Result']}
        >
          {results.map((r) => (
            <tr key={r.deviceId}>
              <td>
                <Link to={`/screens/${encodeURIComponent(r.deviceId)}`}>{names.get(r.deviceId) ?? r.deviceId}</Link>
              </td>
              <td className={r.state === 'FAILED' ? 'bad' : undefined}>
                {r.state === 'PENDING' && job.state === 'CANCELLED' ? 'not changed (cancelled)' : r.state.toLowerCase()}
                {r.error ? `: ${r.error}` : ''}
              </td>
            </tr>
          ))}
        </RecordTable>
      )}
    </div>
  );
}

export function BulkActions({ where, tag, checked, names, onDone }: Props) {
  const rights = useRights();
  const canDevices = rights.can('Devices', 'edit');
  const canSchedules = rights.can('Schedules', 'edit');
  const choices = useQuery(() => gql(BulkChoices, { schedules: canSchedules }), [canSchedules]);
  const actions = ACTIONS.filter((a) => (a.schedules ? canSchedules : canDevices));
  const [who, setWho] = useState<Who>(checked.length ? 'checked' : 'filter');
  const [tags, setTags] = useState('');
  const [groupIds, setGroupIds] = useState<string[]>([]);
  const [action, setAction] = useState<DeviceBulkAction>(actions[0]?.value ?? ('ADD_TAGS' as DeviceBulkAction));
  const [actionTags, setActionTags] = useState('');
  const [groupId, setGroupId] = useState('');
  const [command, setCommand] = useState(COMMANDS[0]!);
  const [scheduleId, setScheduleId] = useState('');
  const [count, setCount] = useState<{ targets: number; notFound: number; sample: { id: string; name: string }[]; input: DeviceBulkJobInput }>();
  const [jobId, setJobId] = useState<string>();
  // Names the dry runs showed, for the results of screens not on the page.
  const [sampled, setSampled] = useState<Map<string, string>>(new Map());
  const { busy, error, run: act } = useAction();
  // Anything changed after a count makes it stale: the job must run on what was counted.
  const change =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setCount(undefined);
    };
  // By value: the page builds a new filter object at every render.
  const selectionKey = JSON.stringify([where, tag, checked]);
  useEffect(() => setCount(undefined), [selectionKey]);
  // Checking rows makes them the selection; unchecking the last falls back to the filter.
  const hasChecked = checked.length > 0;
  useEffect(() => setWho((w) => (hasChecked ? 'checked' : w === 'checked' ? 'filter' : w)), [hasChecked]);
  if (!actions.length) return null;

  const filtered = Object.keys(where).length > 0 || !!tag.trim();
  const selector = (): DeviceSelectorInput => {
    switch (who) {
      case 'checked':
        return { ids: checked };
      case 'filter':
        return filtered ? { where, tags: tag.trim() ? [tag.trim()] : null } : { all: true };
      case 'tags':
        return { tags: list(tags) };
      case 'groups':
        return { groupIds };
    }
  };
  const input = (): DeviceBulkJobInput => ({
    selector: selector(),
    action,
    ...(action === 'ADD_TAGS' || action === 'REMOVE_TAGS' ? { tags: list(actionTags) } : {}),
    ...(action === 'MOVE_TO_GROUP' ? { groupId: groupId || null } : {}),
    ...(action === 'SEND_COMMANDS' ? { commands: [{ command }] } : {}),
    ...(action === 'ASSIGN_SCHEDULE' || action === 'UNASSIGN_SCHEDULE' ? { scheduleId } : {}),
  });
  const call = async (i: DeviceBulkJobInput) => accepted((await gql(StartBulk, { input: i })).startDeviceBulkJob, 'the bulk job');
  const dryRun = () =>
    act(async () => {
      const i = input();
      const r = await call({ ...i, dryRun: true });
      setJobId(undefined);
      setCount({ targets: r.dryRun!.targets, notFound: r.dryRun!.notFound, sample: r.dryRun!.sample, input: i });
      setSampled((m) => new Map([...m, ...r.dryRun!.sample.map((x) => [x.id, x.name] as [string, string])]));
    });
  const run = () =>
    act(async () => {
      const r = await call(count!.input);
      setCount(undefined);
      setJobId(r.jobId!);
    });
  const groups = choices.data?.deviceGroups ?? [];
  const schedules = choices.data?.schedule ?? [];
  const known = new Map([...sampled, ...names]);

  return (
    // Folded by default, so the list stays at the top; its summary says how many rows are checked.
    <details className="card bulk">
      <summary>
        <h2>Act on many screens{checked.length ? ` (${checked.length} checked)` : ''}</h2>
      </summary>
      <form className="stack" aria-label="Act on many screens" onSubmit={handleSubmit(dryRun)}>
        <fieldset>
          <legend>Which screens</legend>
          <label className="inline">
            <input type="radio" name="bulk-who" checked={who === 'checked'} disabled={!checked.length} onChange={() => change(setWho)('checked')} /> the checked
            rows ({checked.length})
          </label>
          <label className="inline">
            <input type="radio" name="bulk-who" checked={who === 'filter'} onChange={() => change(setWho)('filter')} />{' '}
            {filtered ? 'every screen matching the filters above (all pages)' : 'every screen of the account'}
          </label>
          <label className="inline">
            <input type="radio" name="bulk-who" checked={who === 'tags'} onChange={() => change(setWho)('tags')} /> screens with any of these tags
          </label>
          <label className="inline">
            <input type="radio" name="bulk-who" checked={who === 'groups'} onChange={() => change(setWho)('groups')} /> screens in these device groups
          </label>
          {who === 'tags' && (
            <label>
              Select by tags (comma-separated) <input required value={tags} onChange={(e) => change(setTags)(e.target.value)} placeholder="lobby" />
            </label>
          )}
          {who === 'groups' && (
            <label>
              Select by device groups{' '}
              <select
                multiple
                required
                size={Math.min(6, Math.max(2, groups.length))}
                value={groupIds}
                onChange={(e) => change(setGroupIds)([...e.target.selectedOptions].map((o) => o.value))}
              >
                <NamedOptions items={groups} />
              </select>
            </label>
          )}
        </fieldset>
        <label>
          Action{' '}
          <select value={action} onChange={(e) => change(setAction)(e.target.value as DeviceBulkAction)}>
            {actions.map((a) => (
              <option key={a.value} value={a.value}>
                {a.label}
              </option>
            ))}
          </select>
        </label>
        {(action === 'ADD_TAGS' || action === 'REMOVE_TAGS') && (
          <label>
            Tags to {action === 'ADD_TAGS' ? 'add' : 'remove'} (comma-separated){' '}
            <input required value={actionTags} onChange={(e) => change(setActionTags)(e.target.value)} placeholder="spring-menu" />
          </label>
        )}
        {action === 'MOVE_TO_GROUP' && (
          <label>
            Into device group{' '}
            <select value={groupId} onChange={(e) => change(setGroupId)(e.target.value)}>
              <option value="">none (out of every group)</option>
              <NamedOptions items={groups} />
            </select>
          </label>
        )}
        {action === 'SEND_COMMANDS' && (
          <label>
            Command{' '}
            <select value={command} onChange={(e) => change(setCommand)(e.target.value)}>
              {COMMANDS.map((c) => (
                <option key={c} value={c}>
                  {c.replace('_', ' ')}
                </option>
              ))}
            </select>
          </label>
        )}
        {(action === 'ASSIGN_SCHEDULE' || action === 'UNASSIGN_SCHEDULE') && (
          <label>
            Schedule{' '}
            <select required value={scheduleId} onChange={(e) => change(setScheduleId)(e.target.value)}>
              <option value="">Choose…</option>
              <NamedOptions items={schedules} />
            </select>
          </label>
        )}
        <div className="actions">
          <button type="submit" disabled={busy || (who === 'checked' && !checked.length)}>
            Count the screens
          </button>
          {count && (
            <button type="button" className="primary" disabled={busy || count.targets === 0} onClick={() => void run()}>
              Run on {plural(count.targets, 'screen')}
            </button>
          )}
        </div>
        {count && (
          <p role="status" data-testid="bulk-count">
            {plural(count.targets, 'screen')} would change{count.notFound ? `; ${count.notFound.toLocaleString()} of the ids not found` : ''}
            {count.sample.length ? ` (${count.sample.map((s) => s.name).join(', ')}${count.targets > count.sample.length ? ', …' : ''})` : ''}.
          </p>
        )}
        {error && <ErrorState error={error} />}
        {jobId && <Progress key={jobId} id={jobId} names={known} onFinished={onDone} />}
      </form>
    </details>
  );
}
