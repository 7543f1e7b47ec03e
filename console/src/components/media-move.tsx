/**
 * Moves one file to another media group, or out of any group (patchMedia replacing /groupId: only
 * the group changes). Shown with Files edit rights; the server's refusal is shown as it is.
 */
import { useEffect, useRef, useState } from 'react';
import { graphql } from '../gql';
import { gql } from '../lib/api';
import { accepted, useAction } from '../lib/use-action';
import { groupLabel, type MediaGroup } from './media-groups';
import { ErrorState } from './states';

/** JSON Patch on one file: the move here, the tags (media-tags), the validity (startDate/endDate) on the Media page. */
export const PatchMedia = graphql(`
  mutation PatchMedia($id: ID!, $operations: [JsonPatchOperationInput!]!) {
    patchMedia(id: $id, operations: $operations) {
      success
      error
      errorField
      media {
        id
        tags
      }
    }
  }
`);

/** `groupId`: the file's group now (null: none); `groups` in tree order. */
export function MoveToGroup(props: { id: string; name: string; groupId: string | null; groups: MediaGroup[]; onMoved: () => void; onClose: () => void }) {
  const [target, setTarget] = useState(props.groupId ?? '');
  const { busy, error, submit } = useAction();
  const select = useRef<HTMLSelectElement>(null);
  useEffect(() => select.current?.focus(), []);
  const move = submit(async () => {
    const operations = [{ op: 'replace', path: '/groupId', value: target || null }];
    accepted((await gql(PatchMedia, { id: props.id, operations })).patchMedia, 'the move');
    props.onMoved();
    props.onClose();
  });
  return (
    <form className="move-form" aria-label={`Move ${props.name}`} onSubmit={move}>
      <label>
        Group for {props.name}{' '}
        <select ref={select} value={target} onChange={(e) => setTarget(e.target.value)}>
          <option value="">No group</option>
          {props.groups.map((g) => (
            <option key={g.id} value={g.id}>
              {groupLabel(g)}
            </option>
          ))}
        </select>
      </label>
      <span className="card-row">
        <button type="submit" disabled={busy || target === (props.groupId ?? '')}>
          Move
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </span>
      {error && <ErrorState error={error} title="The file was not moved." />}
    </form>
  );
}
