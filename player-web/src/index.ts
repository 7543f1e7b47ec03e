/**
 * @pylon/player-web: what a browser runs as a screen (/play) and the operator's fleet view
 * (/screens). Browser sources in browser/ (ES modules, no framework), the player's scripts bundled
 * by esbuild, and the static files read as text. No HTTP here: the gateway serves these with its
 * own policy (CSP, caching, paths: gateway/src/player-web/player-web.routes.ts), so this package
 * imports nothing of the workspace.
 */
export { buildPlayerBundle, writePlayerBundle, type PlayerBundle } from './player-bundle.js';
export { readPlayerFiles, type PlayerFiles } from './player-files.js';
