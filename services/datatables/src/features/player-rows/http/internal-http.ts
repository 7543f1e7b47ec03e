/**
 * Routes other Pylon processes call in distributed mode (never the edge, which forwards none of
 * them), authenticated by the signed internal token:
 *
 *   GET  /internal/datatables/{tableId}/player-rows   a screen's menu-board rows (playerRows), as
 *        the device's account; caller: the device's own internal principal (devices' player API).
 *        200 with ETag (the table's generation) or 404.
 *   POST /internal/datatables/existing                { "ids": [..] } -> { "ids": the caller's
 *        account's tables among them }; caller: an internal principal with DataTables_View
 *        (content checks a template module's dataTableId).
 *
 * In the all-in-one the same use cases are called in-process instead.
 */
import express, { type Request, type Router } from 'express';
import { AppError, authedRoutes, badInput, guardQuery, type Principal } from '@pylon/kit';
import type { DataTablesRuntime } from '../../../runtime.js';
import { playerRows } from '../player-rows.js';

/** Ids one existence check may name (a template has at most 100 modules). */
export const MAX_EXISTING_IDS = 1000;
const DEVICE_PREFIX = 'device:';

export function createDataTablesInternalHttp(rt: DataTablesRuntime, o: { authenticate(req: Request): Promise<Principal | null> }): Router {
  const router = express.Router();
  const authed = authedRoutes({ authenticate: o.authenticate, logger: rt.logger, what: 'internal data tables request', cutUnreadBodyAbove: 256 * 1024 });

  router.get(
    '/internal/datatables/:tableId/player-rows',
    authed(async (req, res, principal) => {
      if (principal.via !== 'internal' || !principal.userId.startsWith(DEVICE_PREFIX)) {
        throw new AppError('FORBIDDEN', 'only a device reads player rows');
      }
      const device = { accountId: principal.accountId, id: principal.userId.slice(DEVICE_PREFIX.length) };
      const answer = await playerRows(rt, device, String(req.params.tableId).slice(0, 200));
      if (!answer) throw new AppError('NOT_FOUND', 'the account has no such data table', { field: 'tableId' });
      res.setHeader('ETag', answer.etag);
      res.setHeader('Cache-Control', 'no-store');
      res.json(answer.body);
    }),
  );

  router.post(
    '/internal/datatables/existing',
    express.json({ limit: '128kb' }),
    authed(async (req, res, principal) => {
      guardQuery(principal, 'dataTables');
      const ids: unknown = (req.body as { ids?: unknown } | undefined)?.ids;
      if (!Array.isArray(ids) || ids.length > MAX_EXISTING_IDS || !ids.every((id) => typeof id === 'string' && id.length <= 200)) {
        throw badInput('ids', `ids must be an array of at most ${MAX_EXISTING_IDS} table ids`);
      }
      const found = await Promise.all([...new Set(ids as string[])].map(async (id) => ((await rt.repo.getTable(principal.accountId, id)) ? id : null)));
      res.json({ ids: found.filter((id): id is string => id !== null) });
    }),
  );

  return router;
}
