import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLmdbDocumentStore } from '../../src/adapters/documents.lmdb.js';
import type { DocumentStore } from '../../src/ports/documents.js';
import { documentsContract } from '../../src/contract/documents.contract.js';

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
