/**
 * Off-hours of an account's devices by their power schedules, for the analytics process
 * (distributed mode), which leaves them out of uptime (ReportDirectory.powerOff):
 *
 *   GET /internal/power/off-windows?from=<epoch ms>&to=<epoch ms>
 *     { devices: { <deviceId>: [[start, end], ...] } }   only devices a schedule governs
 *
 * Only internal callers reach it: the request carries a signed internal token naming the caller,
 * and the answer covers the caller's account only (an unsigned or forged request is 401).
 */
import { Router } from 'express';
import { INTERNAL_TOKEN_HEADER, type InternalTokens } from '@pylon/kit';
import type { SchedulingRuntime } from '../../../runtime.js';
import { offWindows } from '../manage-power.js';

/** The longest range one request may ask (a year and a day: uptime over a year of days). */
const MAX_RANGE_MS = 367 * 86_400_000;

export function createOffWindowsHttp(rt: SchedulingRuntime, tokens: InternalTokens): Router {
  const router = Router();
  router.get('/internal/power/off-windows', async (req, res) => {
    const caller = await tokens.verify(req.get(INTERNAL_TOKEN_HEADER)).catch(() => null);
    if (!caller) return void res.status(401).json({ error: { code: 'UNAUTHENTICATED', message: 'internal credentials required' } });
    const from = Number(req.query.from);
    const to = Number(req.query.to);
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || to <= from || to - from > MAX_RANGE_MS)
      return void res
        .status(400)
        .json({ error: { code: 'BAD_USER_INPUT', message: 'from and to must be epoch milliseconds, from < to, at most 367 days apart', field: 'from' } });
    try {
      res.json({ devices: Object.fromEntries(await offWindows(rt, caller, from, to)) });
    } catch (e) {
      rt.logger?.warn({ err: e }, 'power off-windows not resolved');
      res.status(503).json({ error: { code: 'UNAVAILABLE', message: 'the power schedules could not be read now; retry' } });
    }
  });
  return router;
}
