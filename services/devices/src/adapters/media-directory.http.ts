/**
 * MediaDirectory over the content subgraph's GraphQL (distributed mode). Signed as an internal
 * caller of the device's account holding Files_View only, so content answers from that account's
 * media and nothing else.
 */
import { AppError, INTERNAL_TOKEN_HEADER, servicePrincipal, type InternalTokens } from '@pylon/kit';
import type { MediaDirectory, MediaFacts } from '../ports/media-directory.js';

const QUERY = 'query($id: [String!], $limit: Int) { media(id: $id, limit: $limit) { id name validFrom validUntil } }';
/** content's own cap on `limit`. */
const PAGE = 1000;

const mediaReader = (accountId: string) => servicePrincipal(accountId, 'player-ingestion', 'player ingestion', ['Files_View']);

export function createHttpMediaDirectory(o: { contentUrl: string; tokens: InternalTokens; timeoutMs?: number }): MediaDirectory {
  const url = new URL('/graphql', o.contentUrl).toString();
  return {
    async files(accountId, fileIds) {
      const out = new Map<string, MediaFacts>();
      for (let i = 0; i < fileIds.length; i += PAGE) {
        const ids = fileIds.slice(i, i + PAGE);
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: await o.tokens.sign(mediaReader(accountId)) },
          body: JSON.stringify({ query: QUERY, variables: { id: ids, limit: ids.length } }),
          signal: AbortSignal.timeout(o.timeoutMs ?? 5000),
        }).catch(() => null);
        const body = res?.ok ? ((await res.json().catch(() => null)) as { data?: { media?: ({ id: string } & MediaFacts)[] | null } } | null) : null;
        if (!body?.data) throw new AppError('UNAVAILABLE', 'media files could not be looked up now; retry');
        for (const m of body.data.media ?? []) out.set(m.id, { name: m.name, validFrom: m.validFrom ?? null, validUntil: m.validUntil ?? null });
      }
      return out;
    },
  };
}
