/**
 * Content validity (docs/fleet-operations.md, "Content expiry"): a playlist source or a media file
 * plays only within [validFrom, validUntil). The badge says where an item stands now (expired, not
 * yet valid, or until when); the editor takes the two instants in the browser's local time and
 * sends them as UTC instants (a zone-less time would be refused by the API), an empty box lifting
 * that side's limit.
 */
import { useState } from 'react';
import { when } from '../lib/format';
import { handleSubmit, useAction } from '../lib/use-action';
import { ErrorState } from './states';
import { SaveOrCancel } from './forms';

type Iso = string | null | undefined;
export type ValidityState = 'expired' | 'not-yet-valid' | 'valid' | 'always';

/** The window that applies (the later start, the earlier end of the windows given) and where `now` stands in it. */
export function effective(windows: { validFrom?: Iso; validUntil?: Iso }[], now = Date.now()): { from: Iso; until: Iso; state: ValidityState } {
  const froms = windows.map((w) => w.validFrom).filter((x): x is string => !!x);
  const untils = windows.map((w) => w.validUntil).filter((x): x is string => !!x);
  const from = froms.sort((a, b) => Date.parse(b) - Date.parse(a))[0];
  const until = untils.sort((a, b) => Date.parse(a) - Date.parse(b))[0];
  const state: ValidityState =
    until && Date.parse(until) <= now ? 'expired' : from && Date.parse(from) > now ? 'not-yet-valid' : from || until ? 'valid' : 'always';
  return { from, until, state };
}

export function ValidityBadge({ windows, now }: { windows: { validFrom?: Iso; validUntil?: Iso }[]; now?: number }) {
  const v = effective(windows, now);
  if (v.state === 'always') return null;
  const text =
    v.state === 'expired'
      ? `expired ${when(v.until)}`
      : v.state === 'not-yet-valid'
        ? `not yet valid: from ${when(v.from)}`
        : `valid${v.from ? ` from ${when(v.from)}` : ''}${v.until ? ` until ${when(v.until)}` : ''}`;
  return <span className={`validity validity-${v.state}`}>{text}</span>;
}

/** ISO instant → the value of an <input type="datetime-local"> in the browser's zone. */
const toLocal = (iso: Iso) => {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
/** An <input type="datetime-local"> value (the browser's local time) → a UTC instant; empty: no limit. */
const fromLocal = (v: string) => (v ? new Date(v).toISOString() : null);

export function ValidityEditor(props: {
  /** What is edited, in the labels ("Plays from (Menu.png)"). */
  name: string;
  validFrom: Iso;
  validUntil: Iso;
  onSave: (validFrom: string | null, validUntil: string | null) => Promise<void>;
  onClose: () => void;
}) {
  const [from, setFrom] = useState(toLocal(props.validFrom));
  const [until, setUntil] = useState(toLocal(props.validUntil));
  const { busy, error, run } = useAction();
  const save = async () => {
    if (await run(() => props.onSave(fromLocal(from), fromLocal(until)))) props.onClose();
  };
  return (
    <form className="validity-form" aria-label={`Validity of ${props.name}`} onSubmit={handleSubmit(save)}>
      <label>
        Plays from ({props.name}) <input type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
      </label>
      <label>
        Plays until ({props.name}) <input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
      </label>
      <span className="muted">Your local time; empty: no limit.</span>
      <SaveOrCancel disabled={busy} onCancel={props.onClose}>
        Save validity
      </SaveOrCancel>
      {error && <ErrorState error={error} />}
    </form>
  );
}
