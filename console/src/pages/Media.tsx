/**
 * The media library (25 a page, with thumbnails, each file's validity: expired ones marked, and
 * with Files edit rights its window edited) and uploads with progress (drop or pick files). A group
 * picker filters the list and its total to one group, and uploads and URL imports go into the
 * group chosen; each file's tags show as chips, edited with Files edit rights, and filter the list.
 * With Files edit rights a file moves to another group and the chosen group is renamed; with Files
 * delete rights the chosen group is deleted (its files move up, components/media-groups.tsx).
 */
import { useRef, useState, type DragEvent } from 'react';
import { MediaGroupPicker, treeOrder, useMediaGroups } from '../components/media-groups';
import { UrlImport } from '../components/media-import';
import { MoveToGroup, PatchMedia } from '../components/media-move';
import { TagChips, TagEditor } from '../components/media-tags';
import { Pager } from '../components/pager';
import { Async, Empty, ErrorState } from '../components/states';
import { ValidityBadge, ValidityEditor } from '../components/validity';
import { graphql } from '../gql';
import { authHeaders } from '../lib/api';
import { gql } from '../lib/api';
import { useRights } from '../lib/permissions';
import { accepted } from '../lib/use-action';
import { useQuery } from '../lib/use-query';

const PAGE = 25;

const MediaList = graphql(`
  query MediaList($limit: Int, $offset: Int, $where: MediaFilterInput, $groupId: [String!], $tag: [String!]) {
    mediaCount(where: $where, groupId: $groupId, tag: $tag)
    media(limit: $limit, offset: $offset, where: $where, groupId: $groupId, tag: $tag, order: [{ uploadedOn: DESC }]) {
      id
      name
      mimeType
      fileSize
      thumbnailUrl
      uploadedOn
      tags
      groupId
      groupName
      validFrom
      validUntil
    }
  }
`);

interface Upload {
  name: string;
  loaded: number;
  total: number;
  error?: string;
  done?: boolean;
}

/** XMLHttpRequest, not fetch: only it reports upload progress in every browser. */
async function upload(file: File, groupId: string, onProgress: (loaded: number, total: number) => void): Promise<void> {
  const headers = await authHeaders();
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/media');
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.total || file.size);
    xhr.onload = () => {
      if (xhr.status < 300) return resolve();
      let message = `HTTP ${xhr.status}`;
      try {
        message = (JSON.parse(xhr.responseText) as { message?: string }).message ?? message;
      } catch {
        /* not JSON */
      }
      reject(new Error(message));
    };
    xhr.onerror = () => reject(new Error('the connection failed'));
    const form = new FormData();
    form.append('file', file);
    form.append('name', file.name.replace(/\.[^.]+$/, ''));
    if (groupId) form.append('group_id', groupId);
    xhr.send(form);
  });
}

const size = (n: number | null | undefined) => (n == null ? '—' : n > 1e6 ? `${(n / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1e3))} kB`);

export function MediaPage() {
  const rights = useRights();
  const [page, setPage] = useState(0);
  const [search, setSearch] = useState('');
  const [groupId, setGroupId] = useState('');
  const [tag, setTag] = useState('');
  const q = useQuery(
    () =>
      gql(MediaList, {
        limit: PAGE,
        offset: page * PAGE,
        where: search.trim() ? { name: { contains: search.trim() } } : null,
        groupId: groupId ? [groupId] : null,
        tag: tag.trim() ? [tag.trim()] : null,
      }),
    [page, search, groupId, tag],
  );
  const filtered = !!(search.trim() || groupId || tag.trim());
  const canEdit = rights.can('Files', 'edit');
  const [tagsOf, setTagsOf] = useState<string>();
  const [moving, setMoving] = useState<string>();
  // Files added (uploads, imports) or moved, groups renamed or deleted: the list and the groups' counts are read again.
  const [changes, setChanges] = useState(0);
  const groups = useMediaGroups(changes);
  const added = () => {
    setChanges((n) => n + 1);
    q.reload();
  };
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [over, setOver] = useState(false);
  const [validityOf, setValidityOf] = useState<string>();
  const input = useRef<HTMLInputElement>(null);
  const start = (files: FileList | null) => {
    for (const file of Array.from(files ?? [])) {
      const entry: Upload = { name: file.name, loaded: 0, total: file.size };
      setUploads((u) => [entry, ...u]);
      const update = (patch: Partial<Upload>) => setUploads((u) => u.map((x) => (x === entry ? Object.assign(entry, patch) && { ...entry } : x)));
      upload(file, groupId, (loaded, total) => update({ loaded, total })).then(
        () => {
          update({ done: true, loaded: entry.total });
          added();
        },
        (e: unknown) => update({ error: e instanceof Error ? e.message : String(e) }),
      );
    }
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    start(e.dataTransfer.files);
  };
  return (
    <section>
      <h1>Media</h1>
      <MediaGroupPicker
        value={groupId}
        groups={groups}
        canCreate={canEdit}
        canDelete={rights.can('Files', 'delete')}
        onChanged={added}
        onChange={(g) => {
          setGroupId(g);
          setPage(0);
        }}
      />
      {canEdit && (
        <div
          className={`dropzone ${over ? 'over' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={drop}
        >
          <p>Drop images, videos or documents here{groupId ? ' (they go into the chosen group)' : ''}, or</p>
          <button type="button" onClick={() => input.current?.click()}>
            Choose files
          </button>
          <input ref={input} type="file" multiple hidden aria-label="Files to upload" onChange={(e) => start(e.target.files)} />
        </div>
      )}
      {canEdit && <UrlImport groupId={groupId} onImported={added} />}
      {uploads.length > 0 && (
        <ul className="uploads" aria-label="Uploads">
          {uploads.map((u, i) => (
            <li key={`${u.name}-${i}`}>
              <label>
                {u.name} {u.error ? `failed: ${u.error}` : u.done ? 'uploaded' : `${Math.round((100 * u.loaded) / Math.max(1, u.total))} %`}
                <progress max={u.total || 1} value={u.loaded} />
              </label>
            </li>
          ))}
        </ul>
      )}
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Name contains
          <input
            type="search"
            value={search}
            onChange={(e) => {
              setSearch(e.target.value);
              setPage(0);
            }}
          />
        </label>
        <label>
          Tag
          <input
            value={tag}
            onChange={(e) => {
              setTag(e.target.value);
              setPage(0);
            }}
          />
        </label>
      </form>
      <Async q={q} what="media">
        {(d) =>
          d.mediaCount === 0 ? (
            <Empty title={filtered ? 'No media matches these filters' : 'The library is empty'}>
              <p>
                {filtered
                  ? `Change or clear the filters${canEdit ? ', or add a file above' : ''}.`
                  : canEdit
                    ? 'Upload a file above to start.'
                    : 'Media uploaded by editors appears here.'}
              </p>
            </Empty>
          ) : (
            <>
              <p>
                {d.mediaCount} file{d.mediaCount === 1 ? '' : 's'}
              </p>
              <ul className="media-grid">
                {(d.media ?? []).map((m) => (
                  <li key={m.id} className="card">
                    {m.thumbnailUrl ? <img src={m.thumbnailUrl} alt="" loading="lazy" /> : <div className="no-thumb" aria-hidden="true" />}
                    <strong>{m.name}</strong>
                    <span className="muted">
                      {m.mimeType ?? 'file'} · {size(m.fileSize)}
                      {m.groupName ? ` · ${m.groupName}` : ''}
                    </span>
                    <ValidityBadge windows={[m]} />
                    {tagsOf === m.id ? (
                      <TagEditor id={m.id} name={m.name} tags={m.tags} onSaved={q.reload} onClose={() => setTagsOf(undefined)} />
                    ) : (
                      <span className="card-row">
                        <TagChips tags={m.tags} />
                        {canEdit && (
                          <button type="button" onClick={() => setTagsOf(m.id)} aria-label={`Tags of ${m.name}`}>
                            Tags
                          </button>
                        )}
                      </span>
                    )}
                    {canEdit &&
                      (moving === m.id ? (
                        <MoveToGroup
                          id={m.id}
                          name={m.name}
                          groupId={m.groupId ?? null}
                          groups={treeOrder(groups.data?.mediaGroups ?? [])}
                          onMoved={added}
                          onClose={() => setMoving(undefined)}
                        />
                      ) : (
                        <button type="button" onClick={() => setMoving(m.id)} aria-label={`Move ${m.name} to another group`}>
                          Move
                        </button>
                      ))}
                    {canEdit &&
                      (validityOf === m.id ? (
                        <ValidityEditor
                          name={m.name}
                          validFrom={m.validFrom}
                          validUntil={m.validUntil}
                          onClose={() => setValidityOf(undefined)}
                          onSave={async (validFrom, validUntil) => {
                            const operations = [
                              { op: 'replace', path: '/startDate', value: validFrom },
                              { op: 'replace', path: '/endDate', value: validUntil },
                            ];
                            accepted((await gql(PatchMedia, { id: m.id, operations })).patchMedia, 'the validity');
                            q.reload();
                          }}
                        />
                      ) : (
                        <button type="button" onClick={() => setValidityOf(m.id)} aria-label={`Validity of ${m.name}`}>
                          Validity
                        </button>
                      ))}
                  </li>
                ))}
              </ul>
              <Pager page={page} pages={Math.ceil(d.mediaCount / PAGE)} onPage={setPage} />
            </>
          )
        }
      </Async>
      {q.error && q.data && <ErrorState error={q.error} retry={q.reload} />}
    </section>
  );
}
