import { AppError } from '../../src/errors.js';
import { insertUnlessPresent } from '../../src/insert-unless-present.js';
import type { Collection } from '../../src/ports/documents.js';

/** A collection whose insert answers `insert` (only insert is reached). */
const collection = (insert: () => Promise<unknown>) => ({ insert }) as unknown as Collection<{ id?: string; n: number }>;

test('insertUnlessPresent: the stored document; null on DUPLICATE_KEY; any other failure thrown as it was', async () => {
  const stored = { id: 'a', n: 1, accountId: 't', version: 1 };
  expect(
    await insertUnlessPresent(
      collection(async () => stored),
      't',
      { id: 'a', n: 1 },
    ),
  ).toBe(stored);
  expect(
    await insertUnlessPresent(
      collection(() => Promise.reject(new AppError('DUPLICATE_KEY', 'taken'))),
      't',
      { n: 1 },
    ),
  ).toBeNull();
  const conflict = new AppError('VERSION_CONFLICT', 'changed');
  await expect(
    insertUnlessPresent(
      collection(() => Promise.reject(conflict)),
      't',
      { n: 1 },
    ),
  ).rejects.toBe(conflict);
  await expect(
    insertUnlessPresent(
      collection(() => Promise.reject(null)),
      't',
      { n: 1 },
    ),
  ).rejects.toBeNull();
});
