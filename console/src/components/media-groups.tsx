/**
 * The media library's group picker: all media, or one group (the list and its total are filtered by
 * it, and uploads and URL imports go into it). With Files edit rights a new group can be created; it
 * becomes the chosen one, so what is added next lands in it.
 */
import { useState } from 'react';
import { graphql } from '../gql';
import { gql } from '../lib/api';
import { accepted, useAction } from '../lib/use-action';
import { useQuery } from '../lib/use-query';
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

interface Group {
  id: string;
  name: string;
  level: number;
  count: number;
  parentId?: string | null;
}

/** The flat list (by name) in tree order: each group followed by its sub-groups, so levels indent right. */
function treeOrder<G extends Group>(groups: G[]): G[] {
  const ids = new Set(groups.map((g) => g.id));
  const under = (parent: string | null): G[] =>
    groups.filter((g) => (g.parentId && ids.has(g.parentId) ? g.parentId : null) === parent).flatMap((g) => [g, ...under(g.id)]);
  return under(null);
}

/** `value` is a group id, or '' for all media; a new `changes` (files added) reads the groups' counts again. */
export function MediaGroupPicker(props: { value: string; onChange: (groupId: string) => void; canCreate: boolean; changes: number }) {
  const q = useQuery(() => gql(MediaGroups), [props.changes]);
  const [name, setName] = useState('');
  const { busy, error, run } = useAction();
  const create = async () => {
    const made = await run(async () => {
      const p = accepted((await gql(CreateMediaGroup, { input: { name: name.trim() } })).createMediaGroup, 'the group');
      q.reload();
      props.onChange(p.group!.id);
    });
    if (made) setName('');
  };
  const groups = treeOrder(q.data?.mediaGroups ?? []);
  return (
    <div className="media-groups">
      <label>
        Group
        <select value={props.value} onChange={(e) => props.onChange(e.target.value)} disabled={!q.data}>
          <option value="">All media</option>
          {/* A chosen group the list does not hold yet (just created, list reloading) keeps its place. */}
          {props.value && !groups.some((g) => g.id === props.value) && <option value={props.value}>…</option>}
          {groups.map((g) => (
            <option key={g.id} value={g.id}>
              {`${'— '.repeat(g.level)}${g.name} (${g.count})`}
            </option>
          ))}
        </select>
      </label>
      {props.canCreate && (
        <form
          className="inline-form"
          aria-label="Create a media group"
          onSubmit={(e) => {
            e.preventDefault();
            void create();
          }}
        >
          <label>
            New group <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
          </label>
          <button type="submit" disabled={busy || !name.trim()}>
            Create group
          </button>
        </form>
      )}
      {(error ?? q.error) && <ErrorState error={(error ?? q.error)!} retry={error ? undefined : q.reload} />}
    </div>
  );
}
