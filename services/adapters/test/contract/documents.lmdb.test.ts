import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLmdbDocumentStore } from '../../src/lmdb/documents.lmdb.js';
import type { DocumentStore } from '@pylon/kit/ports/documents';
import { documentsContract } from '@pylon/kit/contract/documents.contract';

documentsContract('lmdb', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pylon-documents-'));
  let current: DocumentStore = await createLmdbDocumentStore({ path: dir });
  return {
    store: current,
    reopen: async () => {
      await current.close();
      current = await createLmdbDocumentStore({ path: dir });
      return current;
    },
    twin: () => createLmdbDocumentStore({ path: dir }),
    cleanup: async () => {
      await current.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
