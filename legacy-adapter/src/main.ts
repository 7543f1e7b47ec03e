/** Distributed mode: the legacy adapter as its own process, sending persisted operations to the gateway over HTTP. */
import { runFacadeProcess } from '@pylon/composition/facade-process';
import { loadConfigOrExit } from '@pylon/kit';
import { legacyAdapterEnv } from './config.js';
import { createLegacyApp } from './index.js';

const env = loadConfigOrExit(legacyAdapterEnv);
await runFacadeProcess('legacy-adapter', 'legacy adapter', env, ({ client, logger, ops, audit, metrics, gatewayReady }) =>
  // Ready only while the gateway answers, as the REST facade (it serves nothing without it).
  createLegacyApp({ client, logger, ops, audit, trustProxy: env.TRUST_PROXY, metrics, checks: { gateway: gatewayReady } }),
);
