// GraphiQL, bundled by esbuild when the server first serves it (see ../graphiql-bundle.ts).
// The schema comes from the published SDL (/graphql?sdl), so the explorer works even where
// introspection is off; queries go to /graphql with the key bar's key as X-Service-ApiKey.
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { buildSchema } from 'graphql';
import 'graphiql/style.css';

const DEFAULT_QUERY = `# Enter your API key in the bar above, then run (Ctrl-Enter).
{
  device(limit: 10) {
    id
    name
  }
}
`;

async function fetcher(params, options) {
  const key = window.pylonApiKey ? window.pylonApiKey.get() : '';
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      ...(key ? { 'x-service-apikey': key } : {}),
      ...((options && options.headers) || {}),
    },
    body: JSON.stringify(params),
  });
  return res.json();
}

async function main() {
  // Where introspection is off (production) the SDL needs the key too.
  const key = window.pylonApiKey ? window.pylonApiKey.get() : '';
  const sdl = await (await fetch('/graphql?sdl', { headers: key ? { 'x-service-apikey': key } : {} })).text();
  const root = createRoot(document.getElementById('graphiql'));
  root.render(createElement(GraphiQL, { fetcher, schema: buildSchema(sdl), defaultQuery: DEFAULT_QUERY, isHeadersEditorEnabled: true }));
}

main().catch((e) => {
  document.getElementById('graphiql').textContent = `GraphiQL failed to start: ${e.message}`;
});
