import {
  createSubgraph,
  JsonScalar,
  mergeResolvers,
  type BlobStore,
  type DocumentStore,
  type InternalTokens,
  type Logger,
  type PubSub,
  type PushEvents,
  type Subgraph,
} from '@pylon/kit';
import type { ContentRepository } from './shared/content.repository.js';
import { groupResolvers } from './features/groups/resolvers.js';
import { mediaResolvers } from './features/media/resolvers.js';
import { playlistResolvers } from './features/playlists/resolvers.js';
import { templateResolvers } from './features/templates/resolvers.js';
import type { DataTableDirectory } from './ports/data-table-directory.js';
import { createContentRuntime, type ContentRuntime, type ContentSettings } from './runtime.js';

export interface ContentDeps {
  documents: DocumentStore;
  tokens: InternalTokens;
  /** Media files and thumbnails. */
  blobs: BlobStore;
  /** Signs fileUrl / thumbnailUrl; the same on every replica (the internal secret in practice). */
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

export type ContentSubgraph = Subgraph & { repo: ContentRepository; runtime: ContentRuntime };

/** The content subgraph (media, playlists, templates); main.ts serves it over HTTP, the all-in-one gateway calls it in-process. Uploads and files share its runtime (features/media/http/media-http.ts). */
export function createContentSubgraph(deps: ContentDeps): ContentSubgraph {
  const runtime = createContentRuntime({
    documents: deps.documents,
    blobs: deps.blobs,
    urlSecret: deps.urlSecret,
    ...(deps.settings ? { settings: deps.settings } : {}),
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.pubsub ? { pubsub: deps.pubsub } : {}),
    ...(deps.pushEvents ? { pushEvents: deps.pushEvents } : {}),
    ...(deps.dataTables ? { dataTables: deps.dataTables } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });
  const subgraph = createSubgraph({ name: 'content', tokens: deps.tokens, resolvers: contentResolvers(runtime) });
  return Object.assign(subgraph, { repo: runtime.repo, runtime });
}

function contentResolvers(rt: ContentRuntime) {
  return mergeResolvers(mediaResolvers(rt), playlistResolvers(rt), templateResolvers(rt), groupResolvers(rt), { JSON: JsonScalar });
}
