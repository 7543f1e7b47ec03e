/**
 * Scenario 3 (identity, issue 3): what authentication costs. The platform scenario's request
 * (the 50-device list through the gateway with an API key) is loaded again with a warm principal
 * cache (the key was resolved recently: one cache read) and a cold one (every request misses the
 * cache and resolves the key from the store: key by hash, then its user), plus the same request
 * with an OAuth bearer token (JWT verified with the JWKS, then cached like a key). Each figure is
 * reported as a ratio to the platform scenario's gateway figure.
 */
import type { AllInOne } from '@pylon/launcher/all-in-one';
import { load, table, type LoadResult } from './load.js';

interface CacheLike {
  get(key: string): Promise<unknown>;
}

export async function authScenario(o: {
  app: AllInOne;
  key: string;
  bearer?: string;
  query: string;
  variables: Record<string, unknown>;
  seconds: number;
  connections: number;
  /** The platform scenario's gateway req/s. */
  gatewayRps: number;
}): Promise<LoadResult[]> {
  const url = `${o.app.baseUrl}/graphql`;
  const body = { query: o.query, variables: o.variables };
  const headers = (auth: Record<string, string>) => ({ 'content-type': 'application/json', 'apollo-require-preflight': 'true', ...auth });
  /** One load run of a GraphQL POST with these credentials. */
  const post = (name: string, auth: Record<string, string>, payload: object) =>
    load(name, { url, method: 'POST', headers: headers(auth), body: payload, seconds: o.seconds, connections: o.connections });
  const apiKey = { 'x-service-apikey': o.key };
  // Cold: the identity service's principal cache answers every read with a miss while `f` runs.
  const cache = (o.app.subgraphs.identity as unknown as { cache: CacheLike }).cache;
  const get = cache.get;
  const cold = async <T>(f: () => Promise<T>): Promise<T> => {
    cache.get = async () => undefined;
    try {
      return await f();
    } finally {
      cache.get = get;
    }
  };

  const results: LoadResult[] = [];
  results.push(await post('gateway, API key, warm principal cache', apiKey, body));
  results.push(await cold(() => post('gateway, API key, cold principal cache (store lookup per request)', apiKey, body)));
  if (o.bearer) results.push(await post('gateway, OAuth bearer token (JWT), warm cache', { authorization: `Bearer ${o.bearer}` }, body));

  console.log("\nScenario 3: the cost of authentication (the platform scenario's gateway request)\n");
  console.log(table(results));
  for (const r of results) console.log(`${r.name} / platform gateway: ${(r.rps / o.gatewayRps).toFixed(2)}×`);

  // The same comparison on a request that does almost nothing else, where authentication is a larger share.
  const tiny = { query: '{ permissions { isAdministrator } }' };
  const small: LoadResult[] = [];
  small.push(await post('tiny query, API key, warm cache', apiKey, tiny));
  small.push(await cold(() => post('tiny query, API key, cold cache', apiKey, tiny)));
  console.log('\n' + table(small));
  console.log(`tiny query, cold / warm principal cache: ${(small[1]!.rps / small[0]!.rps).toFixed(2)}×`);
  return [...results, ...small];
}
