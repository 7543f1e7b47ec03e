/**
 * Schedule assignment for the devices process's bulk jobs (distributed mode), as the caller the
 * job acts as, with scheduling's own checks (the schedule and the devices are the caller's, the
 * device-list limit, manifest invalidation):
 *
 *   GET  /internal/schedules/{id}/check                       204, or 404 unless the caller's
 *   POST /internal/schedules/{id}/devices { deviceIds, mode }  { refused: { <deviceId>: { error, code } } }
 *
 * Only internal callers reach it: the request carries a signed internal token naming the caller;
 * an unsigned or forged request is 401. Expected failures answer 4xx with the stable code.
 */
import express, { Router, type Request, type Response } from 'express';
import { INTERNAL_TOKEN_HEADER, isAppError, sendRestError, type InternalTokens, type Principal } from '@pylon/kit';
import type { SchedulingRuntime } from '../../../runtime.js';
import { assignScheduleDevices, checkSchedule } from '../assign-devices.js';

/** Devices one request may name (a bulk job's chunk is 1,000). */
const MAX_DEVICES = 1_000;

export function createAssignHttp(rt: SchedulingRuntime, tokens: InternalTokens): Router {
  const router = Router();
  const callerOf = async (req: Request, res: Response): Promise<Principal | null> => {
    const caller = await tokens.verify(req.get(INTERNAL_TOKEN_HEADER)).catch(() => null);
    if (!caller) res.status(401).json({ error: { code: 'UNAUTHENTICATED', message: 'internal credentials required' } });
    return caller;
  };
  const failed = (res: Response, e: unknown) => {
    if (isAppError(e) && e.code !== 'INTERNAL')
      return void sendRestError(res, e.code, e.message, { field: typeof e.details.field === 'string' ? e.details.field : undefined });
    rt.logger?.warn({ err: e }, 'schedule assignment failed');
    res.status(503).json({ error: { code: 'UNAVAILABLE', message: 'the schedule could not be changed now; retry' } });
  };

  router.get('/internal/schedules/:id/check', async (req, res) => {
    const caller = await callerOf(req, res);
    if (!caller) return;
    try {
      await checkSchedule(rt, caller, String(req.params.id).slice(0, 200));
      res.status(204).end();
    } catch (e) {
      failed(res, e);
    }
  });

  router.post('/internal/schedules/:id/devices', express.json({ limit: '128kb' }), async (req, res) => {
    const caller = await callerOf(req, res);
    if (!caller) return;
    const body = req.body as { deviceIds?: unknown; mode?: unknown } | undefined;
    const ids = body?.deviceIds;
    if (!Array.isArray(ids) || ids.length > MAX_DEVICES || !ids.every((id) => typeof id === 'string') || (body?.mode !== 'add' && body?.mode !== 'remove'))
      return void res.status(400).json({
        error: { code: 'BAD_USER_INPUT', message: `deviceIds (at most ${MAX_DEVICES} strings) and mode (add or remove) are required`, field: 'deviceIds' },
      });
    try {
      const refused = await assignScheduleDevices(rt, caller, String(req.params.id).slice(0, 200), ids as string[], body.mode);
      res.json({ refused: Object.fromEntries(refused) });
    } catch (e) {
      failed(res, e);
    }
  });
  return router;
}
