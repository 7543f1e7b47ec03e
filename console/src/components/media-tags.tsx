/**
 * A media file's tags: chips for everyone; with Files edit rights an editor that adds and removes
 * one tag at a time, each change saved at once (patchMedia replacing /tags: only the tags change).
 */
import { useState } from 'react';
import { gql } from '../lib/api';
import { accepted, handleSubmit, useAction } from '../lib/use-action';
import { Chips } from './chips';
import { PatchMedia } from './media-move';
import { ErrorState } from './states';

export function TagChips({ tags }: { tags: readonly string[] }) {
  if (!tags.length) return null;
  return (
    <span className="tags">
      <Chips items={tags} />
    </span>
  );
}

export function TagEditor(props: { id: string; name: string; tags: readonly string[]; onSaved: () => void; onClose: () => void }) {
  const [tags, setTags] = useState(props.tags);
  const [added, setAdded] = useState('');
  const { busy, error, run } = useAction();
  const save = (next: string[]) =>
    run(async () => {
      const p = accepted((await gql(PatchMedia, { id: props.id, operations: [{ op: 'replace', path: '/tags', value: next }] })).patchMedia, 'the tags');
      setTags(p.media?.tags ?? next);
      props.onSaved();
    });
  const add = async () => {
    const tag = added.trim();
    if (!tag || tags.includes(tag)) return setAdded('');
    if (await save([...tags, tag])) setAdded('');
  };
  return (
    <div className="tag-editor" role="group" aria-label={`Tags of ${props.name}`}>
      <ul className="tags" aria-label="Current tags">
        {tags.map((t) => (
          <li className="tag" key={t}>
            {t}
            <button
              type="button"
              className="tag-remove"
              disabled={busy}
              onClick={() => void save(tags.filter((x) => x !== t))}
              aria-label={`Remove tag ${t} from ${props.name}`}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={handleSubmit(add)}>
        <label>
          New tag ({props.name}) <input value={added} maxLength={100} onChange={(e) => setAdded(e.target.value)} />
        </label>
        <div className="actions">
          <button type="submit" disabled={busy || !added.trim()}>
            Add tag
          </button>
          <button type="button" onClick={props.onClose}>
            Done
          </button>
        </div>
      </form>
      {error && <ErrorState error={error} title="Could not save the tags." />}
    </div>
  );
}
