/**
 * The registry is built from the operation modules (modules.generated.ts), and `npm test` runs the
 * facade's start-up check over it: rest.yaml, the persisted documents and the declared operations
 * agree, and every documented parameter and body property is mapped.
 */
import { loadOperations } from '@pylon/kit';
import { checkFacade, loadRestDocument } from '../src/document.js';
import { deleteOp, listOp } from '../src/operations/declare.js';
import { collectOperations, collectRoutes, REST_OPERATIONS } from '../src/operations/index.js';
import { OPERATION_MODULES } from '../src/operations/modules.generated.js';
import { documented, errors, route } from '../src/operations/route.js';

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

test('every operation rest.yaml documents is declared with its route, and each route is the documented one', () => {
  const routes = new Map(collectRoutes(OPERATION_MODULES).map((r) => [r.operationId, r.route]));
  const documentedOps: string[] = [];
  for (const [path, item] of Object.entries(definition.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, { operationId: string }>)) {
      documentedOps.push(op.operationId);
      expect([op.operationId, routes.get(op.operationId)?.method, routes.get(op.operationId)?.path]).toEqual([op.operationId, method, path]);
    }
  }
  expect([...routes.keys()].sort()).toEqual(documentedOps.sort());
  for (const id of Object.keys(REST_OPERATIONS)) expect([id, routes.has(id)]).toEqual([id, true]);
});

test('routes are keyed like the registry (documented ones by export name); one route claimed twice fails', () => {
  const spec = { tags: ['Devices'], summary: 'Delete a device.', responses: { '204': { description: 'Deleted.' }, ...errors(401, 404) } };
  const typed = route('DELETE /devices/{id}', spec, deleteOp('deleteDevice', { root: 'deleteDevice' }));
  const ping = documented('POST /player/{registrationKey}/ping', { ...spec, 'x-pylon-handler': 'player' });
  const routes = collectRoutes([{ deleteDevice: typed, playerPing: ping, plain: deleteOp({ root: 'x' }) }]);
  expect(routes.map((r) => [r.operationId, r.route.method, r.route.path])).toEqual([
    ['deleteDevice', 'delete', '/devices/{id}'],
    ['playerPing', 'post', '/player/{registrationKey}/ping'],
  ]);
  expect(routes[0]!.route.spec.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
  expect(() => collectRoutes([{ playerPing: ping }, { playerPing: documented('GET /x', { ...spec, 'x-pylon-handler': 'player' }) }])).toThrow(
    "two modules declare the route of 'playerPing'",
  );
});
