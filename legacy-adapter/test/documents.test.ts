/**
 * The legacy adapter runs the REST facade's persisted document wherever its query is the same
 * (operations.ts legacyDocuments): schema/operations/legacy/ holds only the documents whose
 * selection differs (the legacy record shapes), never a copy of a REST one.
 */
import { loadOperations } from '@pylon/kit';
import { parse, print } from 'graphql';
import { createOperationRunner, legacyDocuments } from '../src/operations.js';
import { RESOURCES } from '../src/resources/index.js';

/** The document without its comments and layout (fragments appended, as loadOperations serves it). */
const normal = (text: string) => print(parse(text));

test('no legacy document is a copy of the REST document of the same name', () => {
  const rest = loadOperations('rest');
  const copies = [...loadOperations('legacy')].filter(([id, text]) => rest.has(id) && normal(rest.get(id)!) === normal(text)).map(([id]) => id);
  expect(copies).toEqual([]);
});

test('every operation a legacy resource runs has a document; shared ones are the REST documents', () => {
  const documents = legacyDocuments();
  const required = [...new Set(RESOURCES.flatMap((r) => r.operations))];
  expect(required.filter((id) => !documents.has(id))).toEqual([]);
  // e.g. GET /account and the analytics datasets run the REST documents, the device records their own.
  expect(documents.get('getAccount')).toBe(loadOperations('rest').get('getAccount'));
  expect(documents.get('getHeatMap')).toBe(loadOperations('rest').get('getHeatMap'));
  expect(documents.get('listDevices')).toBe(loadOperations('legacy').get('listDevices'));
});

test('the runner refuses to start when a resource names a document neither set has', () => {
  const client = { execute: () => Promise.reject(new Error('not called')) };
  const logger = { error: () => undefined } as never;
  expect(() => createOperationRunner({ client: client as never, logger, required: ['getAccount', 'noSuchOperation'] })).toThrow(
    'legacy adapter: missing persisted operations noSuchOperation in schema/operations/legacy or rest',
  );
});
