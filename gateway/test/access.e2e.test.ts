/**
 * Policies per role, enforced in the subgraph that owns each field: every query and mutation of the
 * schema is called with each role's key, and what `permissions` reports (canView, allowedMutations,
 * deniedMutations) must be exactly what the API does. Missing policy: FORBIDDEN on GraphQL, 403 on
 * REST and legacy.
 */
import { createApiKey, createUser, MUTATION_RULES, type IdentityService } from '@pylon/identity';
import { startHarness, TEST_KEY, type Harness } from './harness.js';
import { INTROSPECTION_QUERY, minimalCall, parseIntrospection, type Introspection } from './schema.helpers.js';

/** Spec query -> the resource whose canView governs it (spec, Queries table; account administration). */
const QUERY_RESOURCE: Record<string, string> = {
  device: 'Devices',
  deviceGroups: 'Devices',
  displayCommands: 'Devices',
  media: 'Files',
  mediaGroups: 'Files',
  playlist: 'Playlists',
  playlistGroups: 'Playlists',
  template: 'Templates',
  templateGroups: 'Templates',
  schedule: 'Schedules',
  scheduleGroups: 'Schedules',
  user: 'Users',
  alert: 'Alerts',
  auditEvent: 'AuditEvents',
  dataTables: 'DataTables',
  dataTable: 'DataTables',
  dataTableRows: 'DataTables',
  dataTableRow: 'DataTables',
  exportDataTableRows: 'DataTables',
  dataTableRowVersions: 'DataTables',
  dataTableRowVersion: 'DataTables',
  playLogs: 'Analytics',
  pingLogs: 'Analytics',
  eventLogs: 'Analytics',
  eventMetrics: 'Analytics',
  impressions: 'Analytics',
  deviceMetrics: 'Analytics',
  audienceMetrics: 'Analytics',
  mediaPlayStats: 'Analytics',
  devicePlayStats: 'Analytics',
  deviceMediaPlayStats: 'Analytics',
  playStatsByTime: 'Analytics',
  eventFlow: 'Analytics',
  heatMapData: 'Analytics',
  eventHeatMapData: 'Analytics',
  mediaImpressions: 'Analytics',
  deviceMediaImpressions: 'Analytics',
  account: 'Account',
  organizations: 'Account',
  permissions: 'Account',
  apiKeys: 'ApiKeys',
};

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

describe('enforcement agrees with permissions, role by role', () => {
  test.each(Object.keys(ROLES))('%s: every query is refused exactly when canView is false', async (role) => {
    const fields = schema.query.fields!.map((f) => f.name).filter((f) => f in QUERY_RESOURCE);
    expect(fields.length).toBeGreaterThan(15);
    const disagreements: string[] = [];
    for (const field of fields) {
      const r = await h.gql(minimalCall(schema, 'query', field), { key: keys[role]! });
      const codes = codesOf(r.body);
      expect([field, codes.includes('GRAPHQL_VALIDATION_FAILED')]).toEqual([field, false]);
      const canView = perms[role]!.permissions.find((p) => p.resource === QUERY_RESOURCE[field])!.canView;
      if (codes.includes('FORBIDDEN') === canView) disagreements.push(`${field}: canView=${canView}, got ${codes.join(',') || 'ok'}`);
    }
    expect(disagreements).toEqual([]);
  });

  test.each(Object.keys(ROLES))('%s: every mutation is refused exactly when it is in deniedMutations', async (role) => {
    const mutations = (schema.mutation?.fields ?? []).map((f) => f.name).filter((m) => m in MUTATION_RULES);
    expect(mutations.length).toBeGreaterThanOrEqual(5);
    const disagreements: string[] = [];
    for (const m of mutations) {
      const r = await h.gql(minimalCall(schema, 'mutation', m), { key: keys[role]! });
      const codes = codesOf(r.body);
      expect([m, codes.includes('GRAPHQL_VALIDATION_FAILED')]).toEqual([m, false]);
      const allowed = perms[role]!.allowedMutations.includes(m);
      if (codes.includes('FORBIDDEN') === allowed) disagreements.push(`${m}: allowed=${allowed}, got ${codes.join(',') || 'ok'}`);
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
