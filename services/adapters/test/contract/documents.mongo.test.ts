import mongoose from 'mongoose';
import { createMongoDocumentStore } from '../../src/mongo/documents.mongo.js';
import type { DocumentStore } from '@pylon/kit/ports/documents';
import { documentsContract } from '@pylon/kit/contract/documents.contract';

const url = process.env.MONGO_URL;
// Without a server every case registers as skipped (jest reports them so), never as a pass.
const d = url ? describe : describe.skip;

const run = `${Date.now().toString(36)}_${process.pid}`;
let seq = 0;

async function dropDatabase(mongoUrl: string, dbName: string): Promise<void> {
  const conn = await mongoose.createConnection(mongoUrl, { dbName }).asPromise();
  try {
    await conn.dropDatabase();
  } finally {
    await conn.close();
  }
}

d('documents.mongo', () => {
  documentsContract(
    'mongo',
    async () => {
      const mongoUrl = url as string;
      const dbName = `pylon_documents_test_${run}_${seq++}`;
      let current: DocumentStore = await createMongoDocumentStore({ url: mongoUrl, dbName });
      return {
        store: current,
        reopen: async () => {
          await current.close();
          current = await createMongoDocumentStore({ url: mongoUrl, dbName });
          return current;
        },
        twin: () => createMongoDocumentStore({ url: mongoUrl, dbName }),
        cleanup: async () => {
          await current.close();
          await dropDatabase(mongoUrl, dbName);
        },
      };
    },
    { sharedByReplicas: true },
  );
});
