/**
 * The legacy adapter runs the REST facade's persisted document wherever its query is the same
 * (operations.ts legacyDocuments): schema/operations/legacy/ holds only the documents whose query
 * differs, never a copy of a REST one, and they spread the REST fragments rather than copies of them.
 */
import { loadOperations } from '@pylon/kit';
import { Kind, parse, print } from 'graphql';
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
  expect(documents.get('getDevice')).toBe(loadOperations('rest').get('getDevice'));
  expect(documents.get('listDevices')).toBe(loadOperations('legacy').get('listDevices'));
});

test('the legacy documents spread the REST fragments: no legacy fragment repeats one', () => {
  const fragments = (texts: Iterable<string>) =>
    new Map(
      [...texts].flatMap((t) =>
        parse(t).definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, print(d.selectionSet)] as const] : [])),
      ),
    );
  const rest = new Set(fragments(loadOperations('rest').values()).values());
  const legacy = [...fragments(loadOperations('legacy').values())].filter(([name]) => !name.startsWith('Rest'));
  expect(legacy.filter(([, selection]) => rest.has(selection)).map(([name]) => name)).toEqual([]);
  expect(loadOperations('legacy').get('listDevices')).toMatch(/\.\.\.RestDevice\b/);
});

test('the runner refuses to start when a resource names a document neither set has', () => {
  const client = { execute: () => Promise.reject(new Error('not called')) };
  const logger = { error: () => undefined } as never;
  expect(() => createOperationRunner({ client: client as never, logger, required: ['getAccount', 'noSuchOperation'] })).toThrow(
    'legacy adapter: missing persisted operations noSuchOperation in schema/operations/legacy or rest',
  );
});
