/**
 * The player manifest for the devices process (distributed mode), which authenticates the screen's
 * registration key and asks here for what it plays:
 *
 *   GET /internal/manifests/{deviceId}           { manifest, etag }   (404: no such device)
 *   GET /internal/manifests/{deviceId}/version   { version }          (404: no such device)
 *   POST /internal/manifests/{deviceId}/overrides/{overrideId}/ack   { state, device }: an override acknowledged
 *   GET /internal/manifests/{deviceId}/power     { on, since }        the display by its power schedule (offline alerts)
 *
 * Only internal callers reach it: the request carries a signed internal token of kind 'internal'
 * naming the device (`device:{deviceId}`) and its account, so a gateway-signed user token or a token
 * for another device is refused (401), and the answer comes from the token's account only.
 */
import express, { Router, type Request, type Response } from 'express';
import { INTERNAL_TOKEN_HEADER, isAppError, isDevicePrincipal, sendRestError, type InternalTokens } from '@pylon/kit';
import { acknowledgeOverride } from '../../overrides/manage-overrides.js';
import { devicePower } from '../../power/manage-power.js';
import type { SchedulingRuntime } from '../../../runtime.js';
import { currentManifest, manifestVersion, playerPrincipal, type DeviceRef } from '../player-manifest.js';

export function createManifestHttp(rt: SchedulingRuntime, tokens: InternalTokens): Router {
  const router = Router();

  async function deviceOf(req: Request, res: Response): Promise<DeviceRef | null> {
    const id = String(req.params.deviceId ?? '');
    const caller = await tokens.verify(req.get(INTERNAL_TOKEN_HEADER)).catch(() => null);
    if (!caller || !isDevicePrincipal(caller, id)) {
      res.status(401).json({ error: { code: 'UNAUTHENTICATED', message: 'internal credentials for this device required' } });
      return null;
    }
    return { accountId: caller.accountId, id };
  }

  const gone = (res: Response) => res.status(404).json({ error: { code: 'NOT_FOUND', message: 'no such device' } });
  const failed = (res: Response, e: unknown) => {
    rt.logger?.warn({ err: e }, 'manifest not resolved');
    res.status(503).json({ error: { code: 'UNAVAILABLE', message: 'the manifest could not be resolved now; retry' } });
  };

  /** A GET about the token's device: no answer is 404 (no such device), a failure 503. */
  const answer = (path: string, read: (device: DeviceRef) => Promise<object | null>) =>
    router.get(path, async (req, res) => {
      const device = await deviceOf(req, res);
      if (!device) return;
      try {
        const body = await read(device);
        if (!body) return void gone(res);
        res.json(body);
      } catch (e) {
        failed(res, e);
      }
    });

  answer('/internal/manifests/:deviceId', (device) => currentManifest(rt, device));
  answer('/internal/manifests/:deviceId/version', async (device) => {
    const version = await manifestVersion(rt, device);
    return version === null ? null : { version };
  });
  answer('/internal/manifests/:deviceId/power', async (device) => {
    try {
      const p = await devicePower(rt, playerPrincipal(device), device.id);
      return { on: p.on, since: p.since };
    } catch (e) {
      if (isAppError(e) && e.code === 'NOT_FOUND') return null;
      throw e;
    }
  });

  router.post('/internal/manifests/:deviceId/overrides/:overrideId/ack', express.json({ limit: 16_000 }), async (req, res) => {
    const device = await deviceOf(req, res);
    if (!device) return;
    // The devices process authenticated the screen and names it (for the event and the audit entry).
    const { device: who, ...body } = (req.body ?? {}) as { device?: { name?: unknown; groupId?: unknown; tags?: unknown } };
    const named = {
      ...device,
      name: typeof who?.name === 'string' ? who.name : device.id,
      groupId: typeof who?.groupId === 'string' ? who.groupId : null,
      tags: Array.isArray(who?.tags) ? who.tags.filter((t): t is string => typeof t === 'string') : [],
    };
    try {
      res.json(await acknowledgeOverride(rt, named, String(req.params.overrideId), body));
    } catch (e) {
      if (isAppError(e) && e.code !== 'INTERNAL')
        return void sendRestError(res, e.code, e.message, { field: typeof e.details.field === 'string' ? e.details.field : undefined });
      failed(res, e);
    }
  });

  return router;
}
