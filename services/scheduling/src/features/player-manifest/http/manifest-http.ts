/**
 * The player manifest for the devices process (distributed mode), which authenticates the screen's
 * registration key and asks here for what it plays:
 *
 *   GET /internal/manifests/{deviceId}           { manifest, etag }   (404: no such device)
 *   GET /internal/manifests/{deviceId}/version   { version }          (404: no such device)
 *
 * Only internal callers reach it: the request carries a signed internal token of kind 'internal'
 * naming the device (`device:{deviceId}`) and its account, so a gateway-signed user token or a token
 * for another device is refused (401), and the answer comes from the token's account only.
 */
import { Router, type Request, type Response } from 'express';
import { INTERNAL_TOKEN_HEADER, isDevicePrincipal, type InternalTokens } from '@pylon/kit';
import type { SchedulingRuntime } from '../../../runtime.js';
import { currentManifest, manifestVersion, type DeviceRef } from '../player-manifest.js';

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

  router.get('/internal/manifests/:deviceId', async (req, res) => {
    const device = await deviceOf(req, res);
    if (!device) return;
    try {
      const answer = await currentManifest(rt, device);
      if (!answer) return void gone(res);
      res.json(answer);
    } catch (e) {
      failed(res, e);
    }
  });

  router.get('/internal/manifests/:deviceId/version', async (req, res) => {
    const device = await deviceOf(req, res);
    if (!device) return;
    try {
      const version = await manifestVersion(rt, device);
      if (version === null) return void gone(res);
      res.json({ version });
    } catch (e) {
      failed(res, e);
    }
  });

  return router;
}
