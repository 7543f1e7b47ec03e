/** Drops a database a self-check or a test run created for itself (its name is its own: nothing else lives there). */
import mongoose from 'mongoose';

export async function dropMongoDatabase(url: string, dbName: string): Promise<void> {
  const conn = await mongoose.createConnection(url, { dbName, serverSelectionTimeoutMS: 10_000 }).asPromise();
  try {
    await conn.dropDatabase();
  } finally {
    await conn.close();
  }
}
