/**
 * Unique indexes of one collection in the embedded store: `uniq` holds
 * [collection, index, 't', accountId, tuple] or [collection, index, 'g', tuple] -> [accountId, id],
 * checked and set in the same write transaction as the document, so two concurrent writers can
 * never both claim a value.
 */
import type { IndexSpec } from '@pylon/kit/ports/documents';
import type { Key, Ref } from './documents.lmdb-env.js';
import { uniqueKeysOf } from './documents.mongo-emulation.js';
import type { Doc } from '../documents/documents.shared.js';

export interface ResolvedIndex extends IndexSpec {
  scope: 'tenant' | 'global';
}

/** One unique-index key of a document; `sig` compares keys. */
export interface UniqueKey {
  index: string;
  key: Key;
  sig: string;
}

/** The unique-index keys of a stored document of collection `name`. */
export function uniqueKeysFor(name: string, indexes: readonly ResolvedIndex[]): (doc: Doc) => UniqueKey[] {
  return (doc) => {
    const out: UniqueKey[] = [];
    const tenant = doc.accountId as string;
    for (const idx of indexes) {
      for (const enc of uniqueKeysOf(doc, idx)) {
        const key: Key = idx.scope === 'global' ? [name, idx.name, 'g', enc] : [name, idx.name, 't', tenant, enc];
        out.push({ index: idx.name, key, sig: JSON.stringify(key) });
      }
    }
    return out;
  };
}

/** True when a unique-index entry points at this document. */
export const sameRef = (ref: Ref | undefined, tenant: string, id: string): boolean => !!ref && ref[0] === tenant && ref[1] === id;
