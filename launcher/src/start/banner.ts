/** What `npm start` prints once ready: the addresses, and the demo credentials when this start made them. */
import type { AllInOne } from '../all-in-one.js';
import type { AllInOneEnv } from '../all-in-one.config.js';

export interface BannerFacts extends Pick<AllInOne, 'baseUrl' | 'legacyUrl' | 'docs' | 'apiKey' | 'demoPassword' | 'oauthIssuer'> {
  /** Where `npm start` writes its log (the console shows warnings and errors only). */
  logFile?: string;
}

export function banner(env: AllInOneEnv, app: BannerFacts): string {
  const lines = [
    '',
    'Pylon is running (embedded backends, data in ' + env.SIGNAGE_DATA_DIR + ')',
    `  GraphQL     ${app.baseUrl}/graphql   (SDL: ${app.baseUrl}/graphql/?sdl)`,
    `  REST        ${app.baseUrl}/openapi.json   (its operations, e.g. ${app.baseUrl}/devices)`,
    `  Legacy REST ${app.legacyUrl}/`,
    app.docs
      ? `  Docs        ${app.baseUrl}/docs  (REST reference)   ${app.baseUrl}/graphiql  (GraphiQL)`
      : '  Docs        off (NODE_ENV=production; set DOCS_ENABLED=true to serve /docs and /graphiql)',
    `  Health      ${app.baseUrl}/healthz  ${app.baseUrl}/readyz  ${app.baseUrl}/metrics`,
    app.logFile ? `  Logs        ${app.logFile}   (requests and info; this console: warnings and errors)` : '',
    // Secrets the operator set are not echoed (stdout is usually collected as logs); generated ones must be, once.
    env.SIGNAGE_BOOTSTRAP_API_KEY && app.apiKey
      ? '  API key     (the one in SIGNAGE_BOOTSTRAP_API_KEY)'
      : app.apiKey
        ? `  API key     ${app.apiKey}`
        : env.SIGNAGE_DEMO
          ? '  API key     (printed at first start; a new one: npm run admin -- reset-key)'
          : '  API key     (none made: SIGNAGE_DEMO=false; create one with npm run admin -- create-key)',
    `  OAuth       ${app.oauthIssuer}/.well-known/openid-configuration   (client ${env.OAUTH_CLIENT_ID}, scope webapi)`,
    env.SIGNAGE_DEMO_PASSWORD && app.demoPassword
      ? '  Sign-in     owner@demo.example / (the password in SIGNAGE_DEMO_PASSWORD)'
      : app.demoPassword
        ? `  Sign-in     owner@demo.example / ${app.demoPassword}`
        : env.SIGNAGE_DEMO
          ? '  Sign-in     owner@demo.example (password printed at first start; a new one: npm run admin -- reset-password)'
          : '',
    '',
  ];
  return lines.filter((l, i) => l !== '' || i === 0 || i === lines.length - 1).join('\n');
}
