/**
 * ScheduleAssigner over the scheduling process (distributed mode): its internal schedule routes
 * (scheduling's features/schedules/http/assign-http.ts), signed as the caller the bulk job acts as,
 * so scheduling applies its own checks for that caller. A 4xx answer keeps its stable code.
 */
import { AppError, INTERNAL_TOKEN_HEADER, type InternalTokens, type Principal } from '@pylon/kit';
import type { ScheduleAssigner } from '../ports/schedule-assigner.js';

type ErrorBody = { error?: { code?: string; message?: string; field?: string } };

export function createHttpScheduleAssigner(o: { schedulingUrl: string; tokens: InternalTokens; timeoutMs?: number }): ScheduleAssigner {
  async function call(caller: Principal, path: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(new URL(path, o.schedulingUrl), {
      ...init,
      headers: { [INTERNAL_TOKEN_HEADER]: await o.tokens.sign(caller), 'content-type': 'application/json' },
      signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
    }).catch(() => null);
    if (!res || res.status >= 500 || res.status === 401) throw new AppError('UNAVAILABLE', 'the schedule could not be reached now; run the job again');
    if (!res.ok) {
      const e = ((await res.json().catch(() => null)) as ErrorBody | null)?.error;
      throw new AppError(
        res.status === 404 ? 'NOT_FOUND' : e?.code === 'UNPROCESSABLE' ? 'UNPROCESSABLE' : 'BAD_USER_INPUT',
        e?.message ?? `the schedule answered ${res.status}`,
        {
          field: e?.field ?? 'scheduleId',
        },
      );
    }
    return res;
  }
  const path = (id: string, suffix: string) => `/internal/schedules/${encodeURIComponent(id.slice(0, 200))}/${suffix}`;

  return {
    async check(caller, scheduleId) {
      await call(caller, path(scheduleId, 'check'));
    },
    async assign(caller, scheduleId, deviceIds, mode) {
      const res = await call(caller, path(scheduleId, 'devices'), { method: 'POST', body: JSON.stringify({ deviceIds, mode }) });
      const body = (await res.json().catch(() => null)) as { refused?: Record<string, { error: string; code: string }> } | null;
      if (!body?.refused) throw new AppError('UNAVAILABLE', 'the schedule answer was malformed; run the job again');
      return new Map(Object.entries(body.refused));
    },
  };
}
