/**
 * ManifestSource over the scheduling process (distributed mode): GET /internal/manifests/{deviceId}
 * (and /version), signed as an internal caller naming the device and its account, so scheduling
 * answers for that device of that account only (scheduling's http/manifest-http.ts).
 */
import { AppError, devicePrincipal, INTERNAL_TOKEN_HEADER, type InternalTokens } from '@pylon/kit';
import type { ManifestDevice, ManifestSource } from '../ports/manifest-source.js';

/** An UNAVAILABLE whose cause (in the log, never in the answer) says what failed: the connection, the time limit, scheduling's status. */
const unavailable = (message: string, cause: unknown) => Object.assign(new AppError('UNAVAILABLE', message), { cause });

export function createHttpManifestSource(o: { schedulingUrl: string; tokens: InternalTokens; timeoutMs?: number }): ManifestSource {
  async function get<T>(d: ManifestDevice, suffix: string): Promise<T | null> {
    const url = new URL(`/internal/manifests/${encodeURIComponent(d.id)}${suffix}`, o.schedulingUrl);
    let failure: unknown;
    const res = await fetch(url, {
      headers: { [INTERNAL_TOKEN_HEADER]: await o.tokens.sign(devicePrincipal(d.accountId, d.id)) },
      signal: AbortSignal.timeout(o.timeoutMs ?? 5000),
    }).catch((e: unknown) => ((failure = e), null));
    if (res && !res.ok) await res.body?.cancel().catch(() => undefined); // frees the connection now, not at GC
    if (res?.status === 404) return null;
    const body = res?.ok ? ((await res.json().catch((e: unknown) => ((failure = e), null))) as T | null) : null;
    if (!body) {
      const why = failure ?? new Error(res?.ok ? `scheduling answered ${res.status} without a body` : `scheduling answered ${res?.status}`);
      throw unavailable('the manifest could not be resolved now; retry', why);
    }
    return body;
  }

  return {
    async manifest(d) {
      const a = await get<{ manifest: { version: string } & Record<string, unknown>; etag: string }>(d, '');
      if (a && (typeof a.etag !== 'string' || typeof a.manifest?.version !== 'string')) throw new AppError('UNAVAILABLE', 'the manifest answer was malformed');
      return a ? { body: a.manifest, etag: a.etag } : null;
    },
    async power(d) {
      return (await get<{ on: boolean; since: number | null }>(d, '/power')) ?? { on: true, since: null };
    },
    async version(d) {
      const a = await get<{ version: string }>(d, '/version');
      return a ? a.version : null;
    },
    async acknowledgeOverride(d, overrideId, body) {
      const url = new URL(`/internal/manifests/${encodeURIComponent(d.id)}/overrides/${encodeURIComponent(overrideId.slice(0, 200))}/ack`, o.schedulingUrl);
      const res = await fetch(url, {
        method: 'POST',
        headers: { [INTERNAL_TOKEN_HEADER]: await o.tokens.sign(devicePrincipal(d.accountId, d.id)), 'content-type': 'application/json' },
        body: JSON.stringify({ ...(typeof body === 'object' && body ? body : {}), device: { name: d.name, groupId: d.groupId, tags: d.tags } }),
        signal: AbortSignal.timeout(o.timeoutMs ?? 5000),
      }).catch(() => null);
      const answer = res ? ((await res.json().catch(() => null)) as { error?: { code?: string; message?: string; field?: string } } | null) : null;
      if (res && !res.ok && res.status < 500 && answer?.error?.message) {
        throw new AppError(res.status === 404 ? 'NOT_FOUND' : 'BAD_USER_INPUT', answer.error.message, { field: answer.error.field });
      }
      if (!res?.ok || !answer) throw new AppError('UNAVAILABLE', 'the acknowledgement could not be recorded now; retry');
      return answer as { override_id: string; device_id: string; state: string };
    },
  };
}
