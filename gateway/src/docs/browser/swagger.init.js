// Swagger UI over this server's /openapi.json. "Try it out" calls this origin (the document's
// server is a template for any deployment) with the key from the key bar as X-Service-ApiKey.
// Parameters marked `x-pylon-alias: true` (the reference's other names for documented parameters,
// e.g. PascalCase `Take` beside `take` on GET /devices) are left out of this view only: the API and
// /openapi.json keep them.
function withoutAliases(spec) {
  var paths = spec.paths || {};
  Object.keys(paths).forEach(function (path) {
    var item = paths[path];
    [item]
      .concat(
        Object.keys(item).map(function (k) {
          return item[k];
        }),
      )
      .forEach(function (op) {
        if (op && Array.isArray(op.parameters)) {
          op.parameters = op.parameters.filter(function (p) {
            return !(p && p['x-pylon-alias'] === true);
          });
        }
      });
  });
  return spec;
}

window.addEventListener('DOMContentLoaded', async function () {
  var spec = withoutAliases(await (await fetch('/openapi.json')).json());
  spec.servers = [{ url: window.location.origin, description: 'this server' }];
  var ui = SwaggerUIBundle({
    spec: spec,
    dom_id: '#swagger-ui',
    deepLinking: true,
    // No call-home to the public validator: these pages work without internet.
    validatorUrl: null,
    tryItOutEnabled: false,
    displayRequestDuration: true,
    // Tags collapsed, with a filter box: ~150 operations are a long page, and Swagger UI 5 stopped
    // rendering operations past ~134 expanded at once (no error; the docs browser test caught it).
    docExpansion: 'none',
    filter: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
  var apply = function (key) {
    if (key) ui.preauthorizeApiKey('ApiKeyHeader', key);
  };
  apply(window.pylonApiKey.get());
  window.pylonApiKey.onChange(apply);
  window.ui = ui;
});
