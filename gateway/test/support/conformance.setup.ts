/**
 * Jest `setupFiles` entry: every test file gets the reference-conformance check on its `fetch`
 * calls, so a REST e2e suite added later (media, playlists, schedules, ...) is checked without
 * opting in. It acts only on origins registered with registerRestOrigin (see harness.ts).
 */
import { installConformanceFetch } from './reference-conformance.js';

installConformanceFetch({ recordDir: process.env.REST_CONFORMANCE_DIR || undefined, survey: process.env.REST_CONFORMANCE_SURVEY === '1' });
