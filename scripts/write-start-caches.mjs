// Build step (scripts/build.cjs runs it under `node --conditions=pylon-dist`, so the compiled
// packages load): the work every start would repeat on unchanged inputs, done once and written
// beside the compiled modules (what the image runs): rest.yaml's parse and each subgraph's
// expanded SDL (@pylon/kit/derived-cache), and the web player's esbuild bundle.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';
import { writePlayerBundle } from '../player-web/dist/index.js';
import { writeRestDocumentCache } from '../rest-facade/dist/document-cache.js';
import { writeSubgraphSchemaCache } from '../services/kit/dist/graphql/subgraph-schema.js';

const root = new URL('../', import.meta.url);
writeRestDocumentCache(fileURLToPath(new URL('schema/openapi/rest.yaml', root)));
const subgraphs = new URL('schema/subgraphs/', root);
for (const file of readdirSync(subgraphs).filter((f) => f.endsWith('.graphql'))) {
  writeSubgraphSchemaCache(readFileSync(new URL(file, subgraphs), 'utf8'));
}
await writePlayerBundle();
