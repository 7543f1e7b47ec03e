/** The check the facade's quick start (backend.ts) leaves out, made once here instead of at every start. */
import { OpenAPIBackend } from 'openapi-backend';
import { loadRestDocument } from '../src/document.js';

test('rest.yaml is a valid OpenAPI document (the facade starts without re-validating it)', async () => {
  // Not quick, strict: init validates the document against the OpenAPI meta-schema and throws on a problem.
  const api = new OpenAPIBackend({ definition: structuredClone(loadRestDocument().definition), strict: true, validate: false, quick: false });
  await expect(api.init()).resolves.toBe(api);
});
