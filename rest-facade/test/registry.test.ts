/**
 * The registry is built from the operation modules (modules.generated.ts), and `npm test` runs the
 * facade's start-up check over it: rest.yaml, the persisted documents and the declared operations
 * agree, and every documented parameter and body property is mapped.
 */
import { loadOperations } from '@pylon/kit';
import { checkFacade, loadRestDocument } from '../src/document.js';
import { deleteOp, listOp } from '../src/operations/declare.js';
import { collectOperations, REST_OPERATIONS } from '../src/operations/index.js';

const { definition } = loadRestDocument();

test('rest.yaml, the persisted documents and the registry agree (the start-up check)', () => {
  expect(checkFacade(definition, loadOperations('rest'), REST_OPERATIONS)).toEqual([]);
});

test('an operation rest.yaml documents but no module exports fails the check', () => {
  const { listDevices: _, ...rest } = REST_OPERATIONS;
  expect(checkFacade(definition, loadOperations('rest'), rest)).toEqual(["operation 'listDevices' has no mapper in rest-facade/src/operations"]);
});

test('operations are keyed by their declared operationId, else by export name; helpers are skipped', () => {
  const typed = deleteOp('deleteDevice', { root: 'deleteDevice' });
  const ops = collectOperations([{ deleteDevice: typed, removeThing: deleteOp({ root: 'x' }), helper: () => 1, FIELDS: { a: 'b' } }]);
  expect(Object.keys(ops).sort()).toEqual(['deleteDevice', 'removeThing']);
  expect(ops.deleteDevice).toBe(typed);
});

test('two modules declaring one operationId, or an operation exported under another name, fail', () => {
  expect(() => collectOperations([{ listX: listOp({ root: 'x' }) }, { listX: listOp({ root: 'y' }) }])).toThrow(
    "two modules declare the REST operation 'listX'",
  );
  expect(() => collectOperations([{ listEverything: listOp('listDevices', { root: 'device' }) }])).toThrow(
    "REST operation 'listDevices' is exported as 'listEverything'",
  );
});
