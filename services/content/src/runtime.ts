/** Everything the content use cases share: the repositories, the blob port, signed file addresses and settings. */
import type { BlobStore, DocumentStore, Logger, PubSub, PushEvents } from '@pylon/kit';
import { ContentRepository } from './shared/content.repository.js';
import { FileUrls } from './shared/file-urls.js';
import type { DataTableDirectory } from './ports/data-table-directory.js';
import { ContentDueRepository } from './features/expiry/content-due.repository.js';

export interface ContentSettings {
  /** Largest file one upload or import may store (413 past it). */
  maxUploadBytes: number;
  /** Media types (sniffed from the bytes) accepted: exact types or `type/` prefixes. Others: 415. */
  allowedTypes: string[];
  /** Whole-download deadline of a URL import, connection to last byte. */
  importTimeoutMs: number;
  importMaxRedirects: number;
  /**
   * IP addresses a URL import may reach even though they are private, loopback or link-local
   * (on-premise sources; tests' loopback file server). Empty: only public addresses.
   */
  importAllowList: string[];
  /** Lifetime of a signed fileUrl / thumbnailUrl. */
  fileUrlTtlSeconds: number;
  /** Prefix of fileUrl (e.g. https://signage.example.com); empty: addresses relative to the REST base. */
  publicBaseUrl: string;
  /** How often due expiry announcements are looked for (content.expired goes out within this of its instant); 0: never. */
  expirySweepSeconds: number;
  /** How long before a playlist or file runs empty because of expiry content.running_empty goes out (the alert opens). */
  runsEmptyLeadSeconds: number;
}

export const DEFAULT_CONTENT_SETTINGS: ContentSettings = {
  maxUploadBytes: 512 * 1024 * 1024,
  allowedTypes: ['image/', 'video/', 'audio/', 'application/pdf'],
  importTimeoutMs: 60_000,
  importMaxRedirects: 5,
  importAllowList: [],
  fileUrlTtlSeconds: 3600,
  publicBaseUrl: '',
  expirySweepSeconds: 15,
  runsEmptyLeadSeconds: 86_400,
};

export interface ContentRuntime {
  repo: ContentRepository;
  blobs: BlobStore;
  urls: FileUrls;
  settings: ContentSettings;
  logger?: Logger;
  /** Where playlist/template/media changes are announced (CHANNELS.contentChanged); none: not announced. */
  pubsub?: PubSub;
  /** Push events (media.ready/failed, playlist/template.changed); none: not produced. */
  pushEvents?: PushEvents;
  /** When content.expired / content.running_empty are due (features/expiry); present with pushEvents. */
  due?: ContentDueRepository;
  /** Checks a template module's dataTableId; none: a module naming a data table is refused (UNAVAILABLE). */
  dataTables?: DataTableDirectory;
  now(): number;
}

export interface ContentRuntimeDeps {
  documents: DocumentStore;
  /** Media files and thumbnails. */
  blobs: BlobStore;
  /** Signs fileUrl / thumbnailUrl (HMAC); the internal secret in practice, so every replica signs alike. */
  urlSecret: string;
  settings?: Partial<ContentSettings>;
  logger?: Logger;
  /** Announces playlist/template/media changes (player manifests follow). */
  pubsub?: PubSub;
  /** Push events (kit push-events.ts). */
  pushEvents?: PushEvents;
  /** Which data tables an account has (a template module's dataTableId is checked against it). */
  dataTables?: DataTableDirectory;
  now?: () => number;
}

export function createContentRuntime(deps: ContentRuntimeDeps): ContentRuntime {
  const settings = { ...DEFAULT_CONTENT_SETTINGS, ...deps.settings };
  const now = deps.now ?? Date.now;
  return {
    repo: new ContentRepository(deps.documents),
    blobs: deps.blobs,
    urls: new FileUrls(deps.urlSecret, settings.fileUrlTtlSeconds, settings.publicBaseUrl, now),
    settings,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.pubsub ? { pubsub: deps.pubsub } : {}),
    ...(deps.pushEvents ? { pushEvents: deps.pushEvents, due: new ContentDueRepository(deps.documents) } : {}),
    ...(deps.dataTables ? { dataTables: deps.dataTables } : {}),
    now,
  };
}
