/** Distributed mode: the REST facade as its own process, sending persisted operations to the gateway over HTTP. */
import express from 'express';
import { runFacadeProcess } from '@pylon/composition/facade-process';
import { loadConfigOrExit, mountOps, requestLogging } from '@pylon/kit';
import { restFacadeEnv } from './config.js';
import { createRestFacade } from './index.js';

const env = loadConfigOrExit(restFacadeEnv);
await runFacadeProcess('rest-facade', 'REST facade', env, async ({ client, logger, ops, audit, metrics, gatewayReady }) => {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', env.TRUST_PROXY);
  app.use(requestLogging(ops, logger));
  mountOps(app, ops, { gateway: gatewayReady }, metrics);
  app.use(await createRestFacade({ client, logger, audit }));
  return app;
});
