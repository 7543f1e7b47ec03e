/** `npm start`: the whole service on embedded backends, with demo data on first start. */
import { createLogger, loadConfigOrExit } from '@pylon/kit';
import { startAllInOne } from './all-in-one.js';
import { allInOneEnv } from './config.js';

const env = loadConfigOrExit(allInOneEnv);
const logger = createLogger({ level: env.LOG_LEVEL, name: 'pylon' });

try {
  const app = await startAllInOne(env, { logger });
  const lines = [
    '',
    'Pylon is running (embedded backends, data in ' + env.SIGNAGE_DATA_DIR + ')',
    `  GraphQL     ${app.baseUrl}/graphql   (SDL: ${app.baseUrl}/graphql/?sdl)`,
    `  REST        ${app.baseUrl}/          (OpenAPI: ${app.baseUrl}/openapi.json)`,
    `  Legacy REST ${app.legacyUrl}/`,
    app.docs
      ? `  Docs        ${app.baseUrl}/docs  (REST reference)   ${app.baseUrl}/graphiql  (GraphiQL)`
      : '  Docs        off (NODE_ENV=production; set DOCS_ENABLED=true to serve /docs and /graphiql)',
    `  Health      ${app.baseUrl}/healthz  ${app.baseUrl}/readyz  ${app.baseUrl}/metrics`,
    // Secrets the operator set are not echoed (stdout is usually collected as logs); generated ones must be, once.
    env.SIGNAGE_BOOTSTRAP_API_KEY && app.apiKey
      ? '  API key     (the one in SIGNAGE_BOOTSTRAP_API_KEY)'
      : app.apiKey
        ? `  API key     ${app.apiKey}`
        : '  API key     (existing data: use the key printed at first start, or set SIGNAGE_BOOTSTRAP_API_KEY)',
    `  OAuth       ${app.oauthIssuer}/.well-known/openid-configuration   (client ${env.OAUTH_CLIENT_ID}, scope webapi)`,
    env.SIGNAGE_DEMO_PASSWORD && app.demoPassword
      ? '  Sign-in     owner@demo.example / (the password in SIGNAGE_DEMO_PASSWORD)'
      : app.demoPassword
        ? `  Sign-in     owner@demo.example / ${app.demoPassword}`
        : '  Sign-in     owner@demo.example (password printed at first start, or set SIGNAGE_DEMO_PASSWORD)',
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  let stopping = false;
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.on(sig, () => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal: sig }, 'shutting down');
      const force = setTimeout(() => process.exit(1), 15000);
      force.unref();
      app.close().then(
        () => process.exit(0),
        (e: unknown) => {
          logger.error({ err: e }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
} catch (e) {
  logger.fatal({ err: e }, 'failed to start');
  process.exit(1);
}
