/**
 * Policies per role, enforced in the subgraph that owns each field. The walk is generated from the
 * `@policy` table (QUERY_RULES, MUTATION_RULES, collected by `npm run codegen`): every Query and
 * Mutation root field of the served schema is called with each role's key, with arguments built
 * from the schema's types (queries get real ids of the caller's account), and is refused with
 * FORBIDDEN naming its rule exactly when the role lacks that rule; without a key it is refused as
 * UNAUTHENTICATED. A root field missing from the table, or one the walk cannot build arguments
 * for, fails by name. What `permissions` reports (allowedMutations, deniedMutations) must be
 * exactly what the API does. Missing policy: FORBIDDEN on GraphQL, 403 on REST and legacy.
 */
import { allows, QUERY_RULES, RESOURCES, type Requirement } from '@pylon/kit';
import { createApiKey, createUser, MUTATION_RULES, policiesFor, type IdentityService } from '@pylon/identity';
import { startHarness, TEST_KEY, type Harness } from './harness.js';
import { INTROSPECTION_QUERY, minimalCall, parseIntrospection, type ArgValues, type Introspection } from './schema.helpers.js';

const ROLES: Record<string, string[]> = {
  Owner: ['Owner', 'API'],
  Administrator: ['Administrator', 'API'],
  Manager: ['Manager', 'API'],
  Editor: ['Editor', 'API'],
  Viewer: ['Viewer', 'API'],
  'API only': ['API'],
};

interface Permissions {
  isAdministrator: boolean;
  permissions: { resource: string; canView: boolean; canEdit: boolean; canDelete: boolean }[];
  allowedMutations: string[];
  deniedMutations: string[];
}

/** Date arguments by name: a range the analytics and timeline queries accept. */
const DATES: ArgValues = { startDate: '"2026-01-01"', endDate: '"2026-01-02"', from: '"2026-01-01T00:00:00Z"', to: '"2026-01-02T00:00:00Z"' };

/** Objects of the callers' account (made by its owner), by the argument names that take their ids. */
async function ownObjects(): Promise<ArgValues> {
  const made = await h.gql(`mutation {
    d: createDevice(input: { name: "walk device" }) { success error device { id } }
    t: createDataTable(input: { name: "walk table", columns: [{ name: "Name", key: "name", type: TEXT }] }) { success error table { id } }
    w: createWebhookEndpoint(input: { url: "https://hooks.example.com/walk", eventTypes: ["webhook.test"] }) { success error endpoint { id } }
  }`);
  const { d, t, w } = made.body.data ?? {};
  if (!d?.success || !t?.success || !w?.success) throw new Error(`walk fixtures: ${JSON.stringify(made.body)}`);
  const row = await h.gql('mutation($t: String!) { createDataTableRow(input: { tableId: $t, data: { name: "walk" } }) { success error row { id } } }', {
    variables: { t: t.table.id },
  });
  if (!row.body.data?.createDataTableRow?.success) throw new Error(`walk row: ${JSON.stringify(row.body)}`);
  const lit = (v: string) => JSON.stringify(v);
  return { deviceId: lit(d.device.id), tableId: lit(t.table.id), rowId: lit(row.body.data.createDataTableRow.row.id), endpointId: lit(w.endpoint.id) };
}

let queryValues: ArgValues;
let h: Harness;
let schema: Introspection;
const keys: Record<string, string> = {};
const perms: Record<string, Permissions> = {};

beforeAll(async () => {
  h = await startHarness();
  const identity = h.subgraphs.identity as unknown as IdentityService;
  for (const [role, roles] of Object.entries(ROLES)) {
    const u =
      role === 'Owner'
        ? { id: 'demo-owner' }
        : await createUser(identity.repo, { accountId: 'demo-account', username: `${role.replace(' ', '-').toLowerCase()}@roles.example`, roles });
    keys[role] = role === 'Owner' ? TEST_KEY : (await createApiKey(identity.repo, { accountId: 'demo-account', userId: u.id, name: role })).value;
    const p = await h.gql('{ permissions { isAdministrator permissions { resource canView canEdit canDelete } allowedMutations deniedMutations } }', {
      key: keys[role]!,
    });
    perms[role] = p.body.data!.permissions as Permissions;
  }
  schema = parseIntrospection((await h.gql(INTROSPECTION_QUERY)).body.data);
  queryValues = { ...DATES, ...(await ownObjects()) };
}, 60_000);
afterAll(() => h.stop());

const codesOf = (body: { errors?: { extensions?: Record<string, unknown> }[] }) => (body.errors ?? []).map((e) => String(e.extensions?.code));

describe('permissions', () => {
  test('isAdministrator and the spec policies per role', () => {
    expect(Object.fromEntries(Object.entries(perms).map(([r, p]) => [r, p.isAdministrator]))).toEqual({
      Owner: true,
      Administrator: true,
      Manager: false,
      Editor: false,
      Viewer: false,
      'API only': false,
    });
    const view = (role: string, resource: string) => perms[role]!.permissions.find((p) => p.resource === resource)!;
    expect(view('Owner', 'AuditEvents').canView).toBe(true);
    expect(view('Administrator', 'AuditEvents').canView).toBe(false);
    expect(view('Manager', 'Devices')).toMatchObject({ canView: true, canEdit: true, canDelete: true });
    expect(view('Editor', 'Devices')).toMatchObject({ canView: true, canEdit: true, canDelete: false });
    expect(view('Viewer', 'Devices')).toMatchObject({ canView: true, canEdit: false, canDelete: false });
    expect(view('Viewer', 'Users').canView).toBe(false);
    expect(view('API only', 'Devices').canView).toBe(false);
    for (const p of Object.values(perms)) {
      expect([...p.allowedMutations, ...p.deniedMutations].sort()).toEqual(Object.keys(MUTATION_RULES).sort());
    }
  });

  test('every mutation of the schema has a rule in the table permissions is computed from', () => {
    const missing = (schema.mutation?.fields ?? []).map((f) => f.name).filter((m) => !(m in MUTATION_RULES));
    expect(missing).toEqual([]);
  });
});

const ROOT: Record<'query' | 'mutation', Record<string, Requirement>> = { query: QUERY_RULES, mutation: MUTATION_RULES };
const principalOf = (role: string) => ({ roles: ROLES[role]!, policies: policiesFor(ROLES[role]!) });
/** The message a refusal carries (services/kit/src/auth/access.ts): it names the first rule the caller lacks. */
const refusalOf = (role: string, rule: Requirement) => {
  const lacking = (Array.isArray(rule) ? rule : [rule]).find((r) => !allows(principalOf(role), r))!;
  return lacking === 'Administrator' ? 'this operation requires an account owner or administrator' : `this operation requires the ${lacking} policy`;
};

describe('every root field of the schema is in the generated @policy table', () => {
  test.each(['query', 'mutation'] as const)('%s', (op) => {
    const root = op === 'query' ? schema.query : schema.mutation;
    const fields = (root?.fields ?? []).map((f) => f.name);
    expect(fields.filter((f) => !(f in ROOT[op]))).toEqual([]);
    // and every rule names a served field (a stale table entry would walk nothing)
    expect(Object.keys(ROOT[op]).filter((f) => !fields.includes(f))).toEqual([]);
  });
});

describe.each(['query', 'mutation'] as const)('%s walk from the @policy table', (op) => {
  test.each(Object.keys(ROOT[op]))('%s: refused exactly for the roles lacking its rule', async (field) => {
    const rule = ROOT[op][field]!;
    // Queries read real objects of the caller's account; mutations get placeholder ids, so that no
    // role's delete or revoke changes what the next role's call meets.
    const call = minimalCall(schema, op, field, op === 'query' ? queryValues : DATES);
    const roles = Object.keys(ROLES);
    // A holder and a lacker for every rule: Owner holds all; 'API only' lacks all but 'Authenticated',
    // whose lacker is a caller without a key (refused by the edge).
    expect(roles.filter((r) => allows(principalOf(r), rule))).toContain('Owner');
    if (rule !== 'Authenticated') expect(roles.filter((r) => !allows(principalOf(r), rule))).toContain('API only');
    // `permissions` reports canView of the resource a query's rule governs (RESOURCES): it must agree too.
    const resource = op === 'query' ? RESOURCES.find((x) => x.view === rule)?.resource : undefined;
    const anonymous = await h.gql(call, { key: null });
    expect([anonymous.status, codesOf(anonymous.body)]).toEqual([401, ['UNAUTHENTICATED']]);
    const disagreements: string[] = [];
    for (const role of roles) {
      const r = await h.gql(call, { key: keys[role]! });
      const codes = codesOf(r.body);
      const allowed = allows(principalOf(role), rule);
      if (op === 'mutation' && perms[role]!.allowedMutations.includes(field) !== allowed)
        disagreements.push(`${role}: permissions' allowedMutations disagrees with ${JSON.stringify(rule)}`);
      if (resource && perms[role]!.permissions.find((x) => x.resource === resource)?.canView !== allowed)
        disagreements.push(`${role}: permissions' ${resource}.canView disagrees with ${JSON.stringify(rule)}`);
      if (allowed) {
        // Holding the rule: not refused for policy reasons, and the arguments the walk built are valid.
        const bad = codes.filter(
          (c) => ['FORBIDDEN', 'UNAUTHENTICATED', 'GRAPHQL_VALIDATION_FAILED'].includes(c) || (op === 'query' && c === 'BAD_USER_INPUT'),
        );
        if (r.body.data?.[field]?.errorCode === 'FORBIDDEN') bad.push('errorCode FORBIDDEN');
        if (bad.length)
          disagreements.push(`${role} holds ${JSON.stringify(rule)}, got ${bad.join(',')}: ${(r.body.errors ?? []).map((e) => e.message).join('; ')}`);
      } else {
        const e = r.body.errors?.[0];
        const shape = { status: r.status, codes, message: e?.message, path: (e as { path?: unknown } | undefined)?.path, data: r.body.data?.[field] ?? null };
        const expected = { status: 403, codes: ['FORBIDDEN'], message: refusalOf(role, rule), path: [field], data: null };
        if (JSON.stringify(shape) !== JSON.stringify(expected)) disagreements.push(`${role} lacks ${JSON.stringify(rule)}: got ${JSON.stringify(shape)}`);
      }
    }
    expect(disagreements).toEqual([]);
  });
});

describe('FORBIDDEN on every interface', () => {
  test('GraphQL: FORBIDDEN with a message naming the policy', async () => {
    const r = await h.gql('{ device { id } }', { key: keys['API only']! });
    // A response that is nothing but a policy refusal carries the HTTP status too.
    expect(r.status).toBe(403);
    expect(r.body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/Devices_View/), extensions: { code: 'FORBIDDEN' } });
  });

  test('REST: 403 FORBIDDEN', async () => {
    const res = await fetch(`${h.baseUrl}/devices`, { headers: { 'x-service-apikey': keys['API only']! } });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/Devices_View/),
    });
  });

  test('legacy: 403 in the requested format', async () => {
    const json = await fetch(`${h.legacyUrl}/devices?api_key=${keys['API only']}`);
    expect(json.status).toBe(403);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
    const xml = await fetch(`${h.legacyUrl}/devices?api_key=${keys['API only']}&format=xml`);
    expect(xml.status).toBe(403);
    expect(await xml.text()).toMatch(/<code>FORBIDDEN<\/code>/);
  });
});
