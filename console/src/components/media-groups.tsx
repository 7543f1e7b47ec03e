/**
 * The media library's group picker: all media, or one group (the list and its total are filtered by
 * it, and uploads and URL imports go into it). With Files edit rights a new group can be created; it
 * becomes the chosen one, so what is added next lands in it; the chosen group can be renamed. With
 * Files delete rights it can be deleted: the API never deletes media with it, it moves the group's
 * files and sub-groups up to its parent (or out of any group), so the confirmation says where they go.
 * The server's refusal is shown as it is, naming the field.
 */
import { useEffect, useRef, useState } from 'react';
import { graphql } from '../gql';
import type { MediaGroupsQuery } from '../gql/graphql';
import { gql } from '../lib/api';
import { plural } from '../lib/format';
import { accepted, handleSubmit, useAction } from '../lib/use-action';
import { useQuery, type QueryState } from '../lib/use-query';
import { ErrorState } from './states';

const MediaGroups = graphql(`
  query MediaGroups {
    mediaGroups(order: [{ name: ASC }]) {
      id
      name
      level
      count
      parentId
    }
  }
`);

const CreateMediaGroup = graphql(`
  mutation CreateMediaGroup($input: ContentGroupInput!) {
    createMediaGroup(input: $input) {
      success
      error
      errorField
      group {
        id
      }
    }
  }
`);

const RenameMediaGroup = graphql(`
  mutation RenameMediaGroup($id: ID!, $input: ContentGroupInput!) {
    updateMediaGroup(id: $id, input: $input) {
      success
      error
      errorField
    }
  }
`);

const DeleteMediaGroup = graphql(`
  mutation DeleteMediaGroup($id: ID!) {
    deleteMediaGroup(id: $id) {
      success
      error
      errorField
      movedItems
    }
  }
`);

export interface MediaGroup {
  id: string;
  name: string;
  level: number;
  count: number;
  parentId?: string | null;
}

/** The account's media groups, read again when `changes` moves (files added, moved, groups edited). */
export const useMediaGroups = (changes: number): QueryState<MediaGroupsQuery> => useQuery(() => gql(MediaGroups), [changes]);

/** The flat list (by name) in tree order: each group followed by its sub-groups, so levels indent right. */
export function treeOrder<G extends MediaGroup>(groups: readonly G[]): G[] {
  const ids = new Set(groups.map((g) => g.id));
  const under = (parent: string | null): G[] =>
    groups.filter((g) => (g.parentId && ids.has(g.parentId) ? g.parentId : null) === parent).flatMap((g) => [g, ...under(g.id)]);
  return under(null);
}

/** A group as an option: indented by its level, with its count. */
export const groupLabel = (g: MediaGroup) => `${'— '.repeat(g.level)}${g.name} (${g.count})`;

/**
 * Rename and delete of the chosen group; `onDone` gets what happened (shown by the picker: a deleted
 * group's actions are gone), `onGone` the parent the group's files moved to ('' for none).
 */
function GroupActions(props: {
  group: MediaGroup;
  parent?: MediaGroup;
  canEdit: boolean;
  canDelete: boolean;
  onDone: (notice: string) => void;
  onGone: (parentId: string) => void;
}) {
  const { group, parent } = props;
  const [name, setName] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const { busy, error, run, submit } = useAction();
  // The control that opened a form is replaced by it: focus follows, for keyboard users.
  const nameInput = useRef<HTMLInputElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const renaming = name !== undefined;
  useEffect(() => void (renaming && nameInput.current?.focus()), [renaming]);
  useEffect(() => void (confirming && keep.current?.focus()), [confirming]);
  const rename = submit(async () => {
    accepted((await gql(RenameMediaGroup, { id: group.id, input: { name: name!.trim() } })).updateMediaGroup, 'the rename');
    setName(undefined);
    props.onDone(`Renamed ${group.name} to ${name!.trim()}.`);
  });
  const remove = () =>
    run(async () => {
      const p = accepted((await gql(DeleteMediaGroup, { id: group.id })).deleteMediaGroup, 'the delete');
      props.onDone(`Deleted ${group.name}; ${plural(p.movedItems ?? 0, 'file')} moved to ${parent ? parent.name : 'no group'}.`);
      props.onGone(parent?.id ?? '');
    });
  return (
    <div className="group-actions">
      {props.canEdit &&
        (name === undefined ? (
          <button type="button" onClick={() => setName(group.name)}>
            Rename group
          </button>
        ) : (
          <form className="inline-form" aria-label={`Rename ${group.name}`} onSubmit={rename}>
            <label>
              New name for {group.name} <input ref={nameInput} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
            </label>
            <button type="submit" disabled={busy || !name.trim()}>
              Save name
            </button>
            <button type="button" onClick={() => setName(undefined)}>
              Keep the name
            </button>
          </form>
        ))}
      {props.canDelete &&
        (!confirming ? (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Delete group
          </button>
        ) : (
          <div role="group" aria-label={`Delete ${group.name}`} className="inline-form confirm">
            <p>
              Delete {group.name}? Its {plural(group.count, 'file')} and sub-groups move to {parent ? parent.name : 'no group'}; no file is deleted.
            </p>
            <button type="button" className="primary danger" disabled={busy} onClick={() => void remove()}>
              Delete {group.name}
            </button>
            <button type="button" ref={keep} onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </div>
        ))}
      {error && <ErrorState error={error} title="The group was not changed." />}
    </div>
  );
}

/** `value` is a group id, or '' for all media. */
export function MediaGroupPicker(props: {
  value: string;
  onChange: (groupId: string) => void;
  groups: QueryState<MediaGroupsQuery>;
  canCreate: boolean;
  canDelete: boolean;
  /** A group renamed or deleted: the page reads its list again (the files' group names). */
  onChanged: () => void;
}) {
  const q = props.groups;
  const [name, setName] = useState('');
  const [notice, setNotice] = useState('');
  const { busy, error, run } = useAction();
  const create = async () => {
    setNotice('');
    const made = await run(async () => {
      const p = accepted((await gql(CreateMediaGroup, { input: { name: name.trim() } })).createMediaGroup, 'the group');
      q.reload();
      props.onChange(p.group!.id);
    });
    if (made) setName('');
  };
  const groups = treeOrder(q.data?.mediaGroups ?? []);
  const chosen = groups.find((g) => g.id === props.value);
  return (
    <div className="media-groups">
      <label>
        Group
        <select
          value={props.value}
          onChange={(e) => {
            setNotice('');
            props.onChange(e.target.value);
          }}
          disabled={!q.data}
        >
          <option value="">All media</option>
          {/* A chosen group the list does not hold yet (just created, list reloading) keeps its place. */}
          {props.value && !chosen && <option value={props.value}>…</option>}
          {groups.map((g) => (
            <option key={g.id} value={g.id}>
              {groupLabel(g)}
            </option>
          ))}
        </select>
      </label>
      {props.canCreate && (
        <form className="inline-form" aria-label="Create a media group" onSubmit={handleSubmit(create)}>
          <label>
            New group <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
          </label>
          <button type="submit" disabled={busy || !name.trim()}>
            Create group
          </button>
        </form>
      )}
      {chosen && (props.canCreate || props.canDelete) && (
        <GroupActions
          key={chosen.id}
          group={chosen}
          parent={groups.find((g) => g.id === chosen.parentId)}
          canEdit={props.canCreate}
          canDelete={props.canDelete}
          onDone={(n) => {
            setNotice(n);
            props.onChanged();
          }}
          onGone={props.onChange}
        />
      )}
      <p className="muted group-notice" aria-live="polite" data-testid="group-result">
        {notice}
      </p>
      {(error ?? q.error) && <ErrorState error={(error ?? q.error)!} retry={error ? undefined : q.reload} />}
    </div>
  );
}
