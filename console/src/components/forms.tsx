/** Pieces every form repeats: its last row (submit and Cancel), and a select's options of named records. */
import type { ReactNode } from 'react';

/** The primary submit button (`children` is its label) and Cancel. */
export function SaveOrCancel({ disabled, onCancel, children }: { disabled: boolean; onCancel: () => void; children: ReactNode }) {
  return (
    <div className="actions">
      <button type="submit" className="primary" disabled={disabled}>
        {children}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

/** One option a record: its name shown, its id the value, after `prefix` (none while the records load). */
export function NamedOptions({ items, prefix = '' }: { items: readonly { id: string; name: string }[] | null | undefined; prefix?: string }) {
  return (
    <>
      {items?.map((x) => (
        <option key={x.id} value={prefix + x.id}>
          {x.name}
        </option>
      ))}
    </>
  );
}
