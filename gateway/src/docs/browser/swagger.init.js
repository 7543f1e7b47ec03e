// Swagger UI over this server's /openapi.json. "Try it out" calls this origin (the document's
// server is a template for any deployment) with the key from the key bar as X-Service-ApiKey.
window.addEventListener('DOMContentLoaded', async function () {
  var spec = await (await fetch('/openapi.json')).json();
  spec.servers = [{ url: window.location.origin, description: 'this server' }];
  var ui = SwaggerUIBundle({
    spec: spec,
    dom_id: '#swagger-ui',
    deepLinking: true,
    // No call-home to the public validator: these pages work without internet.
    validatorUrl: null,
    tryItOutEnabled: false,
    displayRequestDuration: true,
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
