/**
 * The due-time set behind content.expired and content.running_empty: what is announced when. An
 * entry is written (replaced) where a validUntil or endDate is stored, and read by the sweep in due
 * order; its id names its target, so one entry per target exists and a later write replaces it.
 * The sweep acts on an entry only by deleting or moving it at the version it read: of several
 * replicas sweeping at once, one wins that write and announces, the others see a conflict.
 */
import { createHash } from 'node:crypto';
import { insertUnlessPresent, type Collection, type DocumentStore, type Stored } from '@pylon/kit';
import { CONTENT_DUE, SYSTEM_TENANT } from '../../domain/collections.js';

/** expired: a source's or file's validUntil (content.expired); runs_empty: a playlist's or file's last valid instant (content.running_empty). */
export type DueKind = 'expired' | 'runs_empty';

/** What an entry is about: a playlist source, a playlist, or a media file. */
export interface DueTarget {
  kind: DueKind;
  playlistId: string | null;
  /** Set for a source's expiry only. */
  sourceId: string | null;
  /** Set for a file's entries only (a source's file is read again when it is announced). */
  mediaId: string | null;
}

export interface DueRecord extends DueTarget {
  /** The target's account (not `accountId`: the store sets that to the SYSTEM_TENANT). */
  account: string;
  /** The instant the entry is about (epoch ms): the validUntil, or when the content runs empty. */
  at: number;
  /** When the sweep acts (epoch ms): `at` for an expiry, `at` minus the lead for running empty. */
  dueAt: number;
  /**
   * content.running_empty went out for `at`: the entry stays, due at `at`, so that a later write
   * of the same instant (another source edited) does not announce it again; then it is removed.
   */
  announced?: boolean;
}
export type DueEntry = Stored<DueRecord>;

/** One entry per target: its id (readable; hashed when long ids would pass the store's key limit). */
export function dueId(account: string, t: DueTarget): string {
  const id = [t.kind, account, t.playlistId ?? '', t.sourceId ?? '', t.mediaId ?? ''].map(encodeURIComponent).join('/');
  return id.length <= 200 ? id : `${t.kind}/${createHash('sha256').update(id).digest('hex')}`;
}

const isCode = (e: unknown, code: string) => (e as { code?: string } | null)?.code === code;

export class ContentDueRepository {
  private readonly entries: Collection<DueRecord>;

  constructor(store: DocumentStore) {
    this.entries = store.collection<DueRecord>(CONTENT_DUE);
  }

  /**
   * Writes the target's entry: inserted, or replacing the one there when its instant differs (a new
   * instant wins over the old); one for the same instant is kept when already announced, or due as
   * asked (a changed lead setting moves it).
   */
  async put(record: DueRecord): Promise<void> {
    const id = dueId(record.account, record);
    const held = await this.entries.findById(SYSTEM_TENANT, id);
    if (held?.at === record.at && (held.announced || held.dueAt === record.dueAt)) return;
    const set = { $set: { ...record, announced: false } };
    if (held && (await this.entries.update(SYSTEM_TENANT, id, set))) return;
    const inserted = await insertUnlessPresent(this.entries, SYSTEM_TENANT, { id, ...record, announced: false });
    // null: another writer inserted it between the two calls: replace theirs (the later write wins, as for the record).
    if (!inserted) await this.entries.update(SYSTEM_TENANT, id, set);
  }

  /** Removes the target's entry, if any (its instant was lifted). */
  async drop(account: string, target: DueTarget): Promise<void> {
    await this.entries.delete(SYSTEM_TENANT, dueId(account, target));
  }

  /** Entries due at `now`, earliest first (an index walk that stops past `now`). */
  due(now: number, limit: number): Promise<DueEntry[]> {
    return this.entries.find(SYSTEM_TENANT, { dueAt: { $lte: now } }, { sort: { dueAt: 1 }, limit });
  }

  /** Moves an entry read at `version` (another instant, or announced); false when it changed meanwhile. */
  async move(entry: DueEntry, to: Pick<DueRecord, 'at' | 'dueAt' | 'announced'>): Promise<boolean> {
    try {
      return (await this.entries.update(SYSTEM_TENANT, entry.id, { $set: { ...to } }, { expectedVersion: entry.version })) !== null;
    } catch (e) {
      if (isCode(e, 'VERSION_CONFLICT')) return false;
      throw e;
    }
  }

  /** Removes an entry read at `version`; false when it changed or went meanwhile: whoever removes it announces. */
  async settle(entry: DueEntry): Promise<boolean> {
    try {
      return await this.entries.delete(SYSTEM_TENANT, entry.id, { expectedVersion: entry.version });
    } catch (e) {
      if (isCode(e, 'VERSION_CONFLICT')) return false;
      throw e;
    }
  }
}
