/**
 * Object-level authorization (SECURITY.md API1): one cross-account case per id-taking endpoint of
 * every interface. `idTakingEndpoints` walks the REST operations (every operation of the served
 * OpenAPI document, which the facade checks against its declarations in rest-facade/src/operations/
 * at start-up, with a path parameter or a query parameter named like an id), the served GraphQL
 * schema (root fields with an argument named like an id, or an input field so named at any depth:
 * `input.playlistId`, `where.groupId`) and the legacy routes (path ids); the suite fails naming any
 * endpoint without a case here, so a new endpoint lands with its cross-account test.
 *
 * Account B's key is used on account A's ids (real objects of A's, made through A's public
 * interfaces); the answer must be what an unknown id gets (404, empty list, null, `success:false`),
 * never A's data or a change to it (checked after all cases). Where A has no such object (an alert
 * when none fired, a command) an id of the right form stands in and the case says so.
 */
import { buildSchema, getNamedType, isEnumType, isInputObjectType, type GraphQLField, type GraphQLInputType } from 'graphql';
import { RESOURCES } from '../../legacy-adapter/src/resources/index.js';
import { operationsOf } from '../../rest-facade/src/document.js';

export interface Ids {
  device: string;
  deviceGroup: string;
  registrationKey: string;
  alertRule: string;
  alert: string;
  apiKey: string;
  user: string;
  org: string;
  command: string;
  auditEvent: string;
  /** A's media, playlist and template (demo content) and one group of each area. */
  media: string;
  mediaGroup: string;
  playlist: string;
  playlistGroup: string;
  template: string;
  templateGroup: string;
  /** A's data table (the one its import job fills). */
  dataTable: string;
  /** A's import job (an import over IMPORT_JOB_THRESHOLD_BYTES). */
  job: string;
  /** A's export job (Prefer: respond-async), whose file is downloaded through a signed link. */
  exportJob: string;
  /** A's webhook endpoint. */
  webhookEndpoint: string;
  /** A's schedule. */
  schedule: string;
  /** A's data table with one row (made by A through GraphQL), and that row. */
  rowTable: string;
  row: string;
  /** A's schedule group. */
  scheduleGroup: string;
  /** A pairing code A has claimed (a claimed code is no longer anyone's to read or claim). */
  pairingCode: string;
  /** A's fleet-wide bulk job (a tag added to A's device). */
  bulkJob: string;
  /** A's emergency override (scheduled a year ahead). */
  override: string;
  /** A's CAP alert feed (disabled). */
  capFeed: string;
  /** A's power schedule (of a tag no screen has). */
  powerSchedule: string;
}

type GqlResult = { status: number; body: { data?: Record<string, any> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] } };
export interface CaseContext {
  ids: Ids;
  keyB: string;
  base: string;
  legacy: string;
  /** GraphQL as B. */
  gql(query: string, variables?: Record<string, unknown>): Promise<GqlResult>;
  /** REST as B (JSON content type unless given). */
  rest(path: string, init?: RequestInit): Promise<Response>;
}
type Case = (c: CaseContext) => Promise<void>;

const ID_NAME = /^(id|ids|key)$|Ids?$|_ids?$|^registration_?[kK]ey$/;
/** Inside an input object `key` is a column's or a setting's name, not an object's handle. */
const NESTED_ID_NAME = /^(id|ids)$|Ids?$|_ids?$|^registration_?[kK]ey$/;

/** Whether an argument (or an input field under it, at any depth) names an object by id; sort enums never do. */
function takesId(name: string, type: GraphQLInputType, nested = false, seen = new Set<string>()): boolean {
  const t = getNamedType(type);
  if (isEnumType(t)) return false;
  if ((nested ? NESTED_ID_NAME : ID_NAME).test(name)) return true;
  if (!isInputObjectType(t) || seen.has(t.name)) return false;
  seen.add(t.name);
  return Object.values(t.getFields()).some((f) => takesId(f.name, f.type, true, seen));
}

/** Every id-taking endpoint: `REST <METHOD> <path>`, `GraphQL <Type>.<field>`, `legacy <METHOD> <path>`. */
export function idTakingEndpoints(openapi: any, sdl: string): string[] {
  const out: string[] = [];
  // Every REST operation (declared in rest-facade/src/operations/ or served by a handler): any path
  // parameter names an object (or a credential), whatever it is called.
  for (const { method, path } of operationsOf(openapi)) {
    const item = openapi.paths[path];
    const params = [...(item.parameters ?? []), ...(item[method].parameters ?? [])].map((p: any) =>
      p.$ref ? openapi.components.parameters[String(p.$ref).split('/').pop()!] : p,
    );
    if (params.some((p: any) => p.in === 'path' || (p.in === 'query' && ID_NAME.test(p.name)))) out.push(`REST ${method.toUpperCase()} ${path}`);
  }
  const schema = buildSchema(sdl);
  for (const root of [schema.getQueryType(), schema.getMutationType()]) {
    for (const f of Object.values(root?.getFields() ?? {}) as GraphQLField<unknown, unknown>[]) {
      if (f.args.some((a) => takesId(a.name, a.type))) out.push(`GraphQL ${root!.name}.${f.name}`);
    }
  }
  for (const r of RESOURCES) if (/:\w+/.test(r.path)) out.push(`legacy ${r.method.toUpperCase()} ${r.path}`);
  return out;
}

const NO_PUBLIC_WRITE = '00000000-0000-7000-8000-000000000000';
const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

async function status(res: Promise<Response>, expected: number): Promise<void> {
  const r = await res;
  if (r.status !== expected) throw new Error(`expected ${expected}, got ${r.status}: ${(await r.text()).slice(0, 300)}`);
}
/** Refused as bad input (a reference to an unknown group) or as unknown: never accepted. */
async function refused(res: Promise<Response>): Promise<void> {
  const r = await res;
  if (r.status !== 400 && r.status !== 404) throw new Error(`expected 400 or 404, got ${r.status}: ${(await r.text()).slice(0, 300)}`);
}
async function emptyList(res: Promise<Response>): Promise<void> {
  const r = await res;
  const body = await r.text();
  if (r.status !== 200 || body !== '[]') throw new Error(`expected 200 [], got ${r.status}: ${body.slice(0, 300)}`);
}
/** Every root field of the answer is empty (list), null, or a refused mutation payload. */
function nothing(r: GqlResult): void {
  const data = r.body.data ?? {};
  for (const [field, v] of Object.entries(data)) {
    const empty = v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v && 'success' in v && v.success === false);
    if (!empty) throw new Error(`${field} answered ${JSON.stringify(v).slice(0, 300)}`);
  }
  if (!r.body.data && !r.body.errors?.length) throw new Error(`no data and no errors (${r.status})`);
}
/** The variables of the data-table cases: A's table ($t), and its row ($r). */
const onTable = (i: Ids) => ({ t: i.rowTable });
const onRow = (i: Ids) => ({ t: i.rowTable, r: i.row });
/** An id of the right form where A has no such object. */
const STAND_IN_UUID = '00000000-0000-4000-8000-000000000000';
const gqlNothing =
  (query: string, vars: (ids: Ids) => Record<string, unknown>): Case =>
  async (c) =>
    nothing(await c.gql(query, vars(c.ids)));
/** A count of account A's records asked by B: every aliased count is 0. */
const gqlZero =
  (query: string, vars: (ids: Ids) => Record<string, unknown>): Case =>
  async (c) => {
    const r = await c.gql(query, vars(c.ids));
    if (!r.body.data) throw new Error(`no data (${r.status}): ${JSON.stringify(r.body).slice(0, 300)}`);
    for (const [field, v] of Object.entries(r.body.data)) if (v !== 0) throw new Error(`${field} counted ${JSON.stringify(v)}`);
  };
/**
 * A list (or count, or page) filtered by `where` on each of A's ids (`{ <field>: { eq: id } }`): B
 * answers nothing, 0, or an empty page.
 */
const gqlWhere =
  (field: string, filters: Record<string, keyof Ids>, selection = ' { __typename }'): Case =>
  async (c) => {
    const entries = Object.entries(filters);
    const vars = entries.map((_, n) => `$v${n}: String`).join(', ');
    const calls = entries.map(([f], n) => `w${n}: ${field}(where: { ${f}: { eq: $v${n} } })${selection}`).join(' ');
    const r = await c.gql(`query(${vars}) { ${calls} }`, Object.fromEntries(entries.map(([, k], n) => [`v${n}`, c.ids[k]])));
    if (!r.body.data) throw new Error(`no data (${r.status}): ${JSON.stringify(r.body).slice(0, 300)}`);
    for (const [alias, v] of Object.entries(r.body.data)) {
      const empty = v === 0 || (Array.isArray(v) && v.length === 0) || (Array.isArray(v?.data) && v.data.length === 0);
      if (!empty) throw new Error(`${alias} answered ${JSON.stringify(v).slice(0, 300)}`);
    }
  };
const patch = (path: string, value: unknown) => JSON.stringify([{ op: 'replace', path, value }]);
const legacyCall = (c: CaseContext, method: string, path: string, body?: unknown) =>
  fetch(`${c.legacy}${path}?api_key=${encodeURIComponent(c.keyB)}&format=json`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
/** Player endpoints are authenticated by the registration key itself: a key of no device is refused. */
const credentialScoped =
  (method: string, path: (rk: string) => string, body?: string): Case =>
  async (c) =>
    status(
      fetch(`${c.base}${path('not-a-key-of-any-device-0123')}`, {
        method,
        headers: { 'content-type': method === 'PUT' ? 'image/jpeg' : 'application/json' },
        body: body ?? '{}',
      }),
      401,
    );

/**
 * The analytics queries with A's device and file ids as filters: B's answers are empty (series are
 * asked per device/file/event so that B's own empty periods do not count as an answer).
 */
function analyticsCases(): Record<string, Case> {
  const series: Record<string, string> = { eventMetrics: 'groupByEvent: true', playStatsByTime: 'groupByFile: true' };
  const withFile = [
    'impressions',
    'audienceMetrics',
    'mediaPlayStats',
    'devicePlayStats',
    'deviceMediaPlayStats',
    'playStatsByTime',
    'heatMapData',
    'mediaImpressions',
    'deviceMediaImpressions',
  ];
  const names = ['eventLogs', 'eventMetrics', 'deviceMetrics', 'eventFlow', 'eventHeatMapData', ...withFile];
  return Object.fromEntries(
    names.map((name) => {
      const file = withFile.includes(name);
      const extra = series[name] ? `, ${series[name]}` : '';
      const query = `query($d: [String!]${file ? ', $f: [String!]' : ''}) { ${name}(startDate: "2020-01-01", endDate: "2030-01-01", deviceId: $d${file ? ', fileId: $f' : ''}${extra}) { __typename } }`;
      return [`GraphQL Query.${name}`, gqlNothing(query, (i) => (file ? { d: [i.device], f: [i.media] } : { d: [i.device] }))];
    }),
  );
}

/** The REST analytics datasets with A's device and file ids as filters: B's lists are empty. */
function analyticsRestCases(): Record<string, Case> {
  const extra: Record<string, string> = { eventmetrics: '&groupByEvent=true', playstatsbytime: '&groupByFile=true' };
  const withFile = [
    'impressions',
    'audiencemetrics',
    'mediaplaystats',
    'deviceplaystats',
    'playstatsbytime',
    'heatmap',
    'mediaimpressions',
    'devicemediaimpressions',
  ];
  const names = ['playlogs', 'pinglogs', 'eventlogs', 'eventmetrics', 'eventflow', 'devicemetrics', ...withFile];
  return Object.fromEntries(
    names.map((name) => [
      `REST GET /analytics/${name}`,
      (c: CaseContext) =>
        emptyList(
          c.rest(
            `/analytics/${name}?startDate=2020-01-01&endDate=2030-01-01&deviceId=${encodeURIComponent(c.ids.device)}${
              withFile.includes(name) ? `&fileId=${encodeURIComponent(c.ids.media)}` : ''
            }${extra[name] ?? ''}`,
          ),
        ),
    ]),
  );
}

/**
 * A content area's REST cases on A's record `id` and group `group`: B's lists filtered by A's ids
 * (`lists`: query parameter → id) are empty, and B's reads and writes by id answer 404. Templates
 * take no PUT or PATCH (`edits: false`).
 */
function restAreaCases(area: string, id: keyof Ids, group: keyof Ids, lists: Record<string, keyof Ids>, edits = true): Record<string, Case> {
  const one = (c: CaseContext) => `/${area}/${c.ids[id]}`;
  const groupOf = (c: CaseContext) => `/${area}/groups/${c.ids[group]}`;
  const rename = { method: 'PUT', body: JSON.stringify({ name: 'B was here' }) };
  const cases: Record<string, Case> = {
    [`REST GET /${area}`]: async (c) => {
      for (const [param, of] of Object.entries(lists)) await emptyList(c.rest(`/${area}?${param}=${c.ids[of]}`));
    },
    [`REST GET /${area}/{id}`]: (c) => status(c.rest(one(c)), 404),
    [`REST DELETE /${area}/{id}`]: (c) => status(c.rest(one(c), { method: 'DELETE' }), 404),
    [`REST GET /${area}/groups`]: (c) => emptyList(c.rest(`/${area}/groups?id=${c.ids[group]}`)),
    [`REST PUT /${area}/groups/{id}`]: (c) => status(c.rest(groupOf(c), rename), 404),
    [`REST DELETE /${area}/groups/{id}`]: (c) => status(c.rest(groupOf(c), { method: 'DELETE' }), 404),
  };
  if (!edits) return cases;
  return {
    ...cases,
    [`REST PUT /${area}/{id}`]: (c) => status(c.rest(one(c), rename), 404),
    [`REST PATCH /${area}/{id}`]: (c) =>
      status(c.rest(one(c), { method: 'PATCH', headers: { 'content-type': 'application/json-patch+json' }, body: patch('/name', 'B was here') }), 404),
  };
}

/** The group mutations of an area (`Schedule`: createScheduleGroup...) on A's group: B may not nest under it, rename or delete it. */
function gqlGroupCases(type: string, group: keyof Ids): Record<string, Case> {
  const vars = (i: Ids) => ({ g: i[group] });
  return {
    [`GraphQL Mutation.create${type}Group`]: gqlNothing(
      `mutation($g: String) { create${type}Group(input: { name: "B under A", parentId: $g }) { success } }`,
      vars,
    ),
    [`GraphQL Mutation.update${type}Group`]: gqlNothing(`mutation($g: ID!) { update${type}Group(id: $g, input: { name: "B was here" }) { success } }`, vars),
    [`GraphQL Mutation.delete${type}Group`]: gqlNothing(`mutation($g: ID!) { delete${type}Group(id: $g) { success } }`, vars),
  };
}

/** B's patch (a rename) and delete of A's record of `type` (`Media`: patchMedia, deleteMedia); templates take no patch. */
function gqlPatchDeleteCases(type: string, id: keyof Ids, patchable = true): Record<string, Case> {
  const vars = (i: Ids) => ({ id: i[id] });
  const del = { [`GraphQL Mutation.delete${type}`]: gqlNothing(`mutation($id: ID!) { delete${type}(id: $id) { success } }`, vars) };
  if (!patchable) return del;
  const rename = 'operations: [{ op: "replace", path: "/name", value: "B was here" }]';
  return { ...del, [`GraphQL Mutation.patch${type}`]: gqlNothing(`mutation($id: ID!) { patch${type}(id: $id, ${rename}) { success } }`, vars) };
}

export const CROSS_ACCOUNT_CASES: Record<string, Case> = {
  // ---- REST
  'REST GET /account/auditevents': (c) => emptyList(c.rest(`/account/auditevents?userId=${c.ids.user}`)),
  'REST GET /account/auditevents/{eventId}': (c) => status(c.rest(`/account/auditevents/${c.ids.auditEvent}`), 404),
  'REST GET /users': (c) => emptyList(c.rest(`/users?id=${c.ids.user}`)),
  'REST GET /users/{id}': (c) => status(c.rest(`/users/${c.ids.user}`), 404),
  'REST PATCH /users/{id}': (c) =>
    status(
      c.rest(`/users/${c.ids.user}`, { method: 'PATCH', headers: { 'content-type': 'application/json-patch+json' }, body: patch('/disabled', true) }),
      404,
    ),
  'REST GET /devices': async (c) => {
    await emptyList(c.rest(`/devices?id=${c.ids.device}`));
    await emptyList(c.rest(`/devices?group_id=${c.ids.deviceGroup}`));
    await emptyList(c.rest(`/devices?org_id=${c.ids.org}`));
  },
  'REST GET /devices/{id}': (c) => status(c.rest(`/devices/${c.ids.device}`), 404),
  'REST PUT /devices/{id}': (c) => status(c.rest(`/devices/${c.ids.device}`, { method: 'PUT', body: JSON.stringify({ name: 'B was here' }) }), 404),
  'REST PATCH /devices/{id}': (c) =>
    status(
      c.rest(`/devices/${c.ids.device}`, { method: 'PATCH', headers: { 'content-type': 'application/json-patch+json' }, body: patch('/name', 'B was here') }),
      404,
    ),
  'REST DELETE /devices/{id}': (c) => status(c.rest(`/devices/${c.ids.device}`, { method: 'DELETE' }), 404),
  'REST GET /devices/groups': (c) => emptyList(c.rest(`/devices/groups?id=${c.ids.deviceGroup}`)),
  'REST PUT /devices/groups/{id}': (c) =>
    status(c.rest(`/devices/groups/${c.ids.deviceGroup}`, { method: 'PUT', body: JSON.stringify({ name: 'B was here' }) }), 404),
  'REST DELETE /devices/groups/{id}': (c) => status(c.rest(`/devices/groups/${c.ids.deviceGroup}`, { method: 'DELETE' }), 404),
  'REST GET /devices/pingdata': async (c) => {
    await status(c.rest(`/devices/pingdata?registration_key=${encodeURIComponent(c.ids.registrationKey)}`), 404);
    await status(c.rest(`/devices/pingdata?key=${encodeURIComponent(c.ids.registrationKey)}`), 404);
  },
  'REST GET /devices/{registrationKey}/pingdata': (c) => status(c.rest(`/devices/${encodeURIComponent(c.ids.registrationKey)}/pingdata`), 404),
  'REST GET /devices/{registrationKey}/snap': (c) => status(c.rest(`/devices/${encodeURIComponent(c.ids.registrationKey)}/snap`), 404),
  'REST POST /devices/{id}/commands': (c) =>
    status(c.rest(`/devices/${c.ids.device}/commands`, { method: 'POST', body: JSON.stringify([{ command: 'reboot' }]) }), 404),
  'REST GET /devices/{id}/commands': (c) => status(c.rest(`/devices/${c.ids.device}/commands`), 404),
  'REST POST /devices/{id}/track': (c) => status(c.rest(`/devices/${c.ids.device}/track`, { method: 'POST', body: JSON.stringify({ event_name: 'b' }) }), 404),
  // Data tables: A's table and its row (gateway/test/datatables.e2e.test.ts walks more of them path by path).
  'REST GET /datatables/{tableId}': (c) => status(c.rest(`/datatables/${c.ids.rowTable}`), 404),
  'REST PUT /datatables/{tableId}': (c) => status(c.rest(`/datatables/${c.ids.rowTable}`, { method: 'PUT', body: JSON.stringify({ name: 'b' }) }), 404),
  'REST DELETE /datatables/{tableId}': (c) => status(c.rest(`/datatables/${c.ids.rowTable}`, { method: 'DELETE' }), 404),
  'REST GET /datatables/{tableId}/rows': (c) => status(c.rest(`/datatables/${c.ids.rowTable}/rows`), 404),
  'REST POST /datatables/{tableId}/rows': (c) =>
    status(c.rest(`/datatables/${c.ids.rowTable}/rows`, { method: 'POST', body: JSON.stringify({ data: {} }) }), 404),
  'REST POST /datatables/{tableId}/rows/batch': (c) =>
    status(c.rest(`/datatables/${c.ids.rowTable}/rows/batch`, { method: 'POST', body: JSON.stringify({ rows: [{ data: {} }] }) }), 404),
  'REST POST /datatables/{tableId}/rows/batch-delete': (c) =>
    status(c.rest(`/datatables/${c.ids.rowTable}/rows/batch-delete`, { method: 'POST', body: JSON.stringify({ row_ids: [c.ids.row] }) }), 404),
  'REST PUT /datatables/{tableId}/rows/reorder': (c) =>
    status(c.rest(`/datatables/${c.ids.rowTable}/rows/reorder`, { method: 'PUT', body: JSON.stringify({ row_ids: [c.ids.row] }) }), 404),
  'REST POST /datatables/{tableId}/rows/import': (c) => status(c.rest(`/datatables/${c.ids.rowTable}/rows/import`, { method: 'POST', body: 'name\nx\n' }), 404),
  'REST GET /datatables/{tableId}/rows/export': (c) => status(c.rest(`/datatables/${c.ids.rowTable}/rows/export`), 404),
  // Jobs (issue 20): A's import job, read and cancelled by B.
  'REST GET /jobs/{id}': (c) => status(c.rest(`/jobs/${c.ids.job}`), 404),
  'REST DELETE /jobs/{id}': (c) => status(c.rest(`/jobs/${c.ids.job}`, { method: 'DELETE' }), 404),
  // A's export job: B's key does not find it; its file opens only with the signature A was given.
  'REST GET /jobs/{id}/result': async (c) => {
    await status(c.rest(`/jobs/${c.ids.exportJob}`), 404);
    await status(c.rest(`/jobs/${c.ids.exportJob}/result?expires=9999999999&signature=${'A'.repeat(43)}`), 403);
    await status(c.rest(`/jobs/${c.ids.exportJob}/result`), 403);
  },
  // Fleet-wide bulk (issue 37.4): B's selector naming A's device finds nothing; A's bulk job is not B's.
  'REST POST /devices/bulk': async (c) => {
    const r = await c.rest('/devices/bulk', {
      method: 'POST',
      body: JSON.stringify({ selector: { ids: [c.ids.device] }, action: 'add_tags', tags: ['b'], dry_run: true }),
    });
    const body = await r.text();
    if (r.status !== 200 || !body.includes('"targets":0,"not_found":1'))
      throw new Error(`expected a dry run of 0 targets, 1 not found: ${r.status} ${body.slice(0, 300)}`);
  },
  'REST GET /devices/bulk/{id}/results': (c) => status(c.rest(`/devices/bulk/${c.ids.bulkJob}/results`), 404),
  'GraphQL Query.deviceBulkJobResults': gqlNothing('query($id: ID!) { deviceBulkJobResults(jobId: $id) { deviceId } }', (i) => ({ id: i.bulkJob })),
  'GraphQL Mutation.startDeviceBulkJob': async (c) => {
    const r = await c.gql(
      'mutation($d: [String!]) { startDeviceBulkJob(input: { selector: { ids: $d }, action: ADD_TAGS, tags: ["b"], dryRun: true }) { dryRun { targets notFound } } }',
      {
        d: [c.ids.device],
      },
    );
    const dry = JSON.stringify(r.body.data?.startDeviceBulkJob?.dryRun);
    if (dry !== '{"targets":0,"notFound":1}') throw new Error(`expected 0 targets and 1 not found, got ${dry}`);
  },
  'GraphQL Query.job': gqlNothing('query($id: ID!) { job(id: $id) { id state } }', (i) => ({ id: i.job })),
  'GraphQL Mutation.cancelJob': gqlNothing('mutation($id: ID!) { cancelJob(id: $id) { success error job { id } } }', (i) => ({ id: i.job })),
  'REST GET /datatables/{tableId}/rows/{rowId}': (c) => status(c.rest(`/datatables/${c.ids.rowTable}/rows/${c.ids.row}`), 404),
  'REST PUT /datatables/{tableId}/rows/{rowId}': (c) =>
    status(c.rest(`/datatables/${c.ids.rowTable}/rows/${c.ids.row}`, { method: 'PUT', body: JSON.stringify({ data: {} }) }), 404),
  'REST DELETE /datatables/{tableId}/rows/{rowId}': (c) => status(c.rest(`/datatables/${c.ids.rowTable}/rows/${c.ids.row}`, { method: 'DELETE' }), 404),
  'REST GET /datatables/{tableId}/rows/{rowId}/versions': (c) => status(c.rest(`/datatables/${c.ids.rowTable}/rows/${c.ids.row}/versions`), 404),
  'REST GET /datatables/{tableId}/rows/{rowId}/versions/{version}': (c) => status(c.rest(`/datatables/${c.ids.rowTable}/rows/${c.ids.row}/versions/1`), 404),
  'REST POST /datatables/{tableId}/rows/{rowId}/rollback': (c) =>
    status(c.rest(`/datatables/${c.ids.rowTable}/rows/${c.ids.row}/rollback`, { method: 'POST', body: JSON.stringify({ version: 1 }) }), 404),
  'REST GET /report': async (c) => {
    // The catalog is the same for every account (no account data); the account's ids are the export's.
    await status(c.rest('/report?id=proof_of_play'), 200);
    const body = { report_id: 'proof_of_play', start_date: '2024-01-01', end_date: '2024-01-02' };
    await status(c.rest('/report/export', { method: 'POST', body: JSON.stringify({ ...body, device_id: [c.ids.device] }) }), 404);
    await status(c.rest('/report/export', { method: 'POST', body: JSON.stringify({ ...body, media_id: [c.ids.media] }) }), 404);
  },
  'REST GET /alerts': async (c) => {
    await emptyList(c.rest(`/alerts?id=${c.ids.alert || NO_PUBLIC_WRITE}`));
    await emptyList(c.rest(`/alerts?device_id=${c.ids.device}`));
    await emptyList(c.rest(`/alerts?org_id=${c.ids.org}`));
  },
  'REST GET /alerts/{id}': (c) => status(c.rest(`/alerts/${c.ids.alert || NO_PUBLIC_WRITE}`), 404),
  'REST PUT /alerts/{id}': (c) =>
    status(c.rest(`/alerts/${c.ids.alert || NO_PUBLIC_WRITE}`, { method: 'PUT', body: JSON.stringify({ snoozed_until: null }) }), 404),
  'REST PATCH /alerts/{id}': (c) =>
    status(
      c.rest(`/alerts/${c.ids.alert || NO_PUBLIC_WRITE}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json-patch+json' },
        body: patch('/snoozed_until', null),
      }),
      404,
    ),
  'REST POST /player/{registrationKey}/ping': credentialScoped('POST', (k) => `/player/${k}/ping`),
  'REST POST /player/{registrationKey}/commands/{commandId}/ack': async (c) => {
    await credentialScoped('POST', (k) => `/player/${k}/commands/${c.ids.command || NO_PUBLIC_WRITE}/ack`, '{"status":"acknowledged"}')(c);
  },
  'REST PUT /player/{registrationKey}/snap': credentialScoped('PUT', (k) => `/player/${k}/snap`, '\xff\xd8\xff'),
  'REST POST /player/{registrationKey}/track': credentialScoped('POST', (k) => `/player/${k}/track`, '{"event_name":"x"}'),
  // Player ingestion: the key is the only scope (a key no device has is refused before the body is
  // read); another account's file ids in a batch are kept as unknown files (player-ingestion.test.ts).
  'REST POST /player/{registrationKey}/playlogs': credentialScoped('POST', (k) => `/player/${k}/playlogs`, '[]'),
  'REST POST /player/{registrationKey}/events': credentialScoped('POST', (k) => `/player/${k}/events`, '[]'),
  'REST POST /player/{registrationKey}/impressions': credentialScoped('POST', (k) => `/player/${k}/impressions`, '[]'),
  // The key is the credential: any key but the device's own is the same 401 (no account's manifest leaks).
  'REST GET /player/{registrationKey}/manifest': (c) => status(fetch(`${c.base}/player/not-a-key-of-any-device-0123/manifest`), 401),
  // Rows are read as the key's device's account: an unknown key is 401, and B's own screen asking for a table that is not B's gets 404.
  'REST GET /player/{registrationKey}/datatables/{tableId}/rows': async (c) => {
    await status(fetch(`${c.base}/player/not-a-key-of-any-device-0123/datatables/${NO_PUBLIC_WRITE}/rows`), 401);
    const b = (await (await c.rest('/devices', { method: 'POST', body: JSON.stringify({ name: 'B screen for rows' }) })).json()) as {
      registration_key: string;
    };
    await status(fetch(`${c.base}/player/${b.registration_key}/datatables/${c.ids.rowTable}/rows`), 404);
  },

  // ---- REST content (A's demo media, playlists, templates and groups)
  ...restAreaCases('media', 'media', 'mediaGroup', { id: 'media', group_id: 'mediaGroup' }),
  'REST POST /media/import': (c) =>
    refused(c.rest(`/media/import?url=${encodeURIComponent('https://example.com/a.png')}&group_id=${c.ids.mediaGroup}`, { method: 'POST' })),
  'REST POST /media/{group_id}/{file_name}': (c) =>
    refused(c.rest(`/media/${c.ids.mediaGroup}/b.png`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: PNG_1X1 })),
  ...restAreaCases('playlists', 'playlist', 'playlistGroup', { id: 'playlist', group_id: 'playlistGroup' }),
  ...restAreaCases('templates', 'template', 'templateGroup', { id: 'template', group_id: 'templateGroup' }, false),

  // Schedules: A's schedule and schedule group; A's device must be refused in B's writes.
  ...restAreaCases('schedules', 'schedule', 'scheduleGroup', { id: 'schedule', device_id: 'device', group_id: 'scheduleGroup' }),
  'REST POST /schedules': (c) =>
    status(
      c.rest('/schedules', { method: 'POST', body: JSON.stringify({ name: 'B on A device', playlist_id: NO_PUBLIC_WRITE, devices: [{ id: c.ids.device }] }) }),
      400,
    ),

  // ---- GraphQL queries: B's answers are empty
  'GraphQL Query.playLogs': gqlNothing('query($d: [String!]) { playLogs(startDate: "2020-01-01", endDate: "2100-01-01", deviceId: $d) { deviceId } }', (i) => ({
    d: [i.device],
  })),
  'GraphQL Query.pingLogs': gqlNothing('query($d: [String!]) { pingLogs(startDate: "2020-01-01", endDate: "2100-01-01", deviceId: $d) { deviceId } }', (i) => ({
    d: [i.device],
  })),
  ...analyticsCases(),
  ...analyticsRestCases(),
  'GraphQL Query.auditEvent': gqlNothing(
    'query($e: [String!], $u: String) { a: auditEvent(eventId: $e) { eventId } b: auditEvent(userId: $u) { eventId } }',
    (i) => ({ e: [i.auditEvent], u: i.user }),
  ),
  'GraphQL Query.media': gqlNothing(
    'query($i: [String!], $g: [String!]) { a: media(id: $i) { id } b: media(groupId: $g) { id } c: media(orgId: "x") { id } }',
    (i) => ({ i: [i.media], g: [i.mediaGroup] }),
  ),
  // A's data table and its row.
  'GraphQL Query.dataTable': gqlNothing('query($t: String!) { dataTable(tableId: $t) { id } }', onTable),
  'GraphQL Query.dataTableRows': gqlNothing('query($t: String!) { dataTableRows(tableId: $t) { totalCount } }', onTable),
  'GraphQL Query.dataTableRow': gqlNothing('query($t: String!, $r: String!) { dataTableRow(tableId: $t, rowId: $r) { id } }', onRow),
  'GraphQL Query.exportDataTableRows': gqlNothing('query($t: String!) { exportDataTableRows(tableId: $t) }', onTable),
  'GraphQL Query.dataTableRowVersions': gqlNothing('query($t: String!, $r: String!) { dataTableRowVersions(tableId: $t, rowId: $r) { version } }', onRow),
  'GraphQL Query.dataTableRowVersion': gqlNothing(
    'query($t: String!, $r: String!) { dataTableRowVersion(tableId: $t, rowId: $r, version: 1) { version } }',
    onRow,
  ),
  'GraphQL Mutation.updateDataTable': gqlNothing('mutation($t: String!) { updateDataTable(input: { tableId: $t, name: "b" }) { success } }', onTable),
  'GraphQL Mutation.deleteDataTable': gqlNothing('mutation($t: String!) { deleteDataTable(tableId: $t) { success } }', onTable),
  'GraphQL Mutation.createDataTableRow': gqlNothing('mutation($t: String!) { createDataTableRow(input: { tableId: $t, data: {} }) { success } }', onTable),
  'GraphQL Mutation.updateDataTableRow': gqlNothing(
    'mutation($t: String!, $r: String!) { updateDataTableRow(input: { tableId: $t, rowId: $r, data: {} }) { success } }',
    onRow,
  ),
  'GraphQL Mutation.deleteDataTableRow': gqlNothing('mutation($t: String!, $r: String!) { deleteDataTableRow(tableId: $t, rowId: $r) { success } }', onRow),
  'GraphQL Mutation.batchCreateDataTableRows': gqlNothing(
    'mutation($t: String!) { batchCreateDataTableRows(input: { tableId: $t, rows: [{ data: {} }] }) { success } }',
    onTable,
  ),
  'GraphQL Mutation.batchDeleteDataTableRows': gqlNothing(
    'mutation($t: String!, $r: String!) { batchDeleteDataTableRows(input: { tableId: $t, rowIds: [$r] }) { success } }',
    onRow,
  ),
  'GraphQL Mutation.importDataTableRows': gqlNothing(
    'mutation($t: String!) { importDataTableRows(input: { tableId: $t, csv: "name\\nx" }) { success } }',
    onTable,
  ),
  'GraphQL Mutation.reorderDataTableRows': gqlNothing(
    'mutation($t: String!, $r: String!) { reorderDataTableRows(input: { tableId: $t, rowIds: [$r] }) { success } }',
    onRow,
  ),
  'GraphQL Mutation.rollbackDataTableRow': gqlNothing(
    'mutation($t: String!, $r: String!) { rollbackDataTableRow(input: { tableId: $t, rowId: $r, version: 1 }) { success } }',
    onRow,
  ),
  'GraphQL Query.device': gqlNothing(
    'query($d: [String!], $g: [String!], $o: String, $k: String) { a: device(id: $d) { id } b: device(groupId: $g) { id } c: device(orgId: $o) { id } d: device(registrationKey: $k) { id } e: device(deviceTypeId: ["dt-brightsign"]) { id } }',
    (i) => ({ d: [i.device], g: [i.deviceGroup], o: i.org, k: i.registrationKey }),
  ),
  // The lists' X-Total-Count counts: the same filters, the caller's account only.
  'GraphQL Query.deviceCount': gqlZero(
    'query($d: [String!], $g: [String!], $o: String, $k: String) { a: deviceCount(id: $d) b: deviceCount(groupId: $g) c: deviceCount(orgId: $o) d: deviceCount(registrationKey: $k) }',
    (i) => ({ d: [i.device], g: [i.deviceGroup], o: i.org, k: i.registrationKey }),
  ),
  'GraphQL Query.mediaCount': gqlZero('query($i: [String!], $g: [String!]) { a: mediaCount(id: $i) b: mediaCount(groupId: $g) }', (i) => ({
    i: [i.media],
    g: [i.mediaGroup],
  })),
  'GraphQL Query.alertCount': gqlZero(
    'query($a: [String!], $d: [String!], $o: String) { a: alertCount(id: $a) b: alertCount(deviceId: $d) c: alertCount(orgId: $o) }',
    (i) => ({
      a: [i.alert || NO_PUBLIC_WRITE],
      d: [i.device],
      o: i.org,
    }),
  ),
  'GraphQL Query.userCount': gqlZero('query($u: [String!], $o: String) { a: userCount(id: $u) b: userCount(orgId: $o) }', (i) => ({ u: [i.user], o: i.org })),
  'GraphQL Query.scheduleCount': gqlZero(
    'query($i: [String!], $g: [String!], $d: String) { a: scheduleCount(id: $i) b: scheduleCount(groupId: $g) c: scheduleCount(deviceId: $d) }',
    (i) => ({ i: [i.schedule], g: [i.scheduleGroup], d: i.device }),
  ),
  'GraphQL Query.deviceCommands': gqlNothing('query($d: String!) { deviceCommands(deviceId: $d) { id } }', (i) => ({ d: i.device })),
  'GraphQL Query.alert': gqlNothing(
    'query($a: [String!], $d: [String!], $o: String) { a: alert(id: $a) { id } b: alert(deviceId: $d) { id } c: alert(orgId: $o) { id } }',
    (i) => ({ a: [i.alert || NO_PUBLIC_WRITE], d: [i.device], o: i.org }),
  ),
  'GraphQL Query.user': gqlNothing('query($u: [String!], $o: String) { a: user(id: $u) { id } b: user(orgId: $o) { id } }', (i) => ({ u: [i.user], o: i.org })),
  'GraphQL Query.organizations': gqlNothing('query($o: [String!]) { organizations(id: $o) { id } }', (i) => ({ o: [i.org] })),
  'GraphQL Query.apiKeys': gqlNothing('query($u: String) { apiKeys(userId: $u) { id } }', (i) => ({ u: i.user })),
  'GraphQL Query.schedule': gqlNothing(
    'query($i: [String!], $g: [String!], $d: String) { a: schedule(id: $i) { id } b: schedule(groupId: $g) { id } c: schedule(deviceId: $d) { id } }',
    (i) => ({ i: [i.schedule], g: [i.scheduleGroup], d: i.device }),
  ),

  'GraphQL Query.nowPlaying': async (c) => {
    const r = await c.gql('query($d: ID!) { nowPlaying(deviceId: $d) { timezone } }', { d: c.ids.device });
    if (r.body.data?.nowPlaying || r.body.errors?.[0]?.extensions?.code !== 'NOT_FOUND')
      throw new Error(`nowPlaying answered ${JSON.stringify(r.body).slice(0, 300)}`);
  },
  'GraphQL Query.deviceTimeline': async (c) => {
    const r = await c.gql('query($d: ID!) { deviceTimeline(deviceId: $d, from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z") { timezone } }', {
      d: c.ids.device,
    });
    if (r.body.data?.deviceTimeline || r.body.errors?.[0]?.extensions?.code !== 'NOT_FOUND')
      throw new Error(`deviceTimeline answered ${JSON.stringify(r.body).slice(0, 300)}`);
  },
  'GraphQL Mutation.createSchedule': gqlNothing(
    'mutation($d: [String!], $p: String) { createSchedule(input: { name: "B on A device", playlistId: $p, deviceIds: $d }) { success } }',
    (i) => ({ d: [i.device], p: i.playlist }),
  ),
  'GraphQL Mutation.updateSchedule': gqlNothing(
    'mutation($s: ID!) { updateSchedule(id: $s, input: { name: "B was here", playlistId: "x" }) { success } }',
    (i) => ({ s: i.schedule }),
  ),
  ...gqlPatchDeleteCases('Schedule', 'schedule'),
  ...gqlGroupCases('Schedule', 'scheduleGroup'),
  // ---- GraphQL mutations: refused (success:false), nothing of A changes
  // input.orgId with A's organization is issue 9 item 7 (another change, with its own test); groupId here.
  'GraphQL Mutation.createDevice': gqlNothing('mutation($g: String) { createDevice(input: { name: "B on A group", groupId: $g }) { success } }', (i) => ({
    g: i.deviceGroup,
  })),
  // A live pairing code (a /play screen's), claimed by B onto A's group, then re-paired onto A's device: both refused; so is A's claimed code.
  'GraphQL Mutation.claimDevice': async (c) => {
    const code = async () =>
      (
        (await (await fetch(`${c.base}/player/pairings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as {
          code: string;
        }
      ).code;
    const q = 'mutation($c: String!, $g: String, $d: String) { claimDevice(code: $c, name: "B on A", groupId: $g, deviceId: $d) { success } }';
    nothing(await c.gql(q, { c: await code(), g: c.ids.deviceGroup }));
    nothing(await c.gql(q, { c: await code(), d: c.ids.device }));
    nothing(await c.gql(q, { c: c.ids.pairingCode }));
  },
  'GraphQL Mutation.updateDevice': gqlNothing(
    'mutation($d: ID!, $g: String, $o: String) { a: updateDevice(id: $d, input: { name: "B was here" }) { success } }',
    (i) => ({ d: i.device }),
  ),
  ...gqlPatchDeleteCases('Device', 'device'),
  ...gqlGroupCases('Device', 'deviceGroup'),
  'GraphQL Mutation.sendDeviceCommand': gqlNothing(
    'mutation($d: String!) { sendDeviceCommand(deviceId: $d, commands: [{ command: "reboot" }]) { success } }',
    (i) => ({ d: i.device }),
  ),
  'GraphQL Mutation.sendBulkDeviceCommands': async (c) => {
    const r = await c.gql('mutation($d: [String!]!) { sendBulkDeviceCommands(input: { deviceIds: $d, commands: [{ command: "reboot" }] }) { success } }', {
      d: [c.ids.device],
    });
    nothing(r);
  },
  'GraphQL Mutation.trackDeviceEvent': gqlNothing('mutation($d: String!) { trackDeviceEvent(deviceId: $d, input: { eventName: "b" }) { success } }', (i) => ({
    d: i.device,
  })),
  'GraphQL Mutation.updateAlert': gqlNothing('mutation($a: ID!) { updateAlert(id: $a, input: { snoozedUntil: null }) { success } }', (i) => ({
    a: i.alert || NO_PUBLIC_WRITE,
  })),
  'GraphQL Mutation.patchAlert': gqlNothing(
    'mutation($a: ID!) { patchAlert(id: $a, operations: [{ op: "replace", path: "/snoozed_until", value: null }]) { success } }',
    (i) => ({ a: i.alert || NO_PUBLIC_WRITE }),
  ),
  'GraphQL Mutation.updateAlertRule': gqlNothing(
    'mutation($r: ID!) { updateAlertRule(id: $r, input: { name: "B was here", conditions: [] }) { success } }',
    (i) => ({ r: i.alertRule }),
  ),
  'GraphQL Mutation.deleteAlertRule': gqlNothing('mutation($r: ID!) { deleteAlertRule(id: $r) { success } }', (i) => ({ r: i.alertRule })),
  'GraphQL Mutation.updateAccount': gqlNothing(
    'mutation($u: String) { a: updateAccount(input: { primaryContactId: $u }) { success } b: updateAccount(input: { secondaryContactId: $u }) { success } }',
    (i) => ({ u: i.user }),
  ),
  'GraphQL Mutation.createUser': gqlNothing(
    'mutation($o: String) { createUser(input: { username: "b-in-a-org@tenant-b.example", roles: ["Viewer"], orgId: $o }) { success } }',
    (i) => ({ o: i.org }),
  ),
  'GraphQL Mutation.updateUser': gqlNothing('mutation($u: String!) { updateUser(id: $u, input: { disabled: true, roles: ["Viewer"] }) { success } }', (i) => ({
    u: i.user,
  })),
  'GraphQL Mutation.patchUser': gqlNothing(
    'mutation($u: String!) { patchUser(id: $u, operations: [{ op: "replace", path: "/disabled", value: true }]) { success } }',
    (i) => ({ u: i.user }),
  ),
  'GraphQL Mutation.createApiKey': gqlNothing('mutation($u: String!) { createApiKey(input: { userId: $u, name: "stolen" }) { success } }', (i) => ({
    u: i.user,
  })),
  // Webhooks: A's endpoint and its log are unknown to B; B's filters may not name A's devices or groups.
  'GraphQL Query.webhookEndpoints': gqlNothing('query($i: [String!]) { webhookEndpoints(id: $i) { id url } }', (i) => ({ i: [i.webhookEndpoint] })),
  'GraphQL Query.webhookDeliveries': gqlNothing('query($e: String!) { webhookDeliveries(endpointId: $e) { id } }', (i) => ({ e: i.webhookEndpoint })),
  'GraphQL Mutation.createWebhookEndpoint': gqlNothing(
    'mutation($d: [String!], $g: String) { a: createWebhookEndpoint(input: { url: "https://hooks.example.com/b", deviceIds: $d }) { success } b: createWebhookEndpoint(input: { url: "https://hooks.example.com/b", deviceGroupId: $g }) { success } }',
    (i) => ({ d: [i.device], g: i.deviceGroup }),
  ),
  'GraphQL Mutation.updateWebhookEndpoint': gqlNothing(
    'mutation($id: String!) { updateWebhookEndpoint(id: $id, input: { enabled: false }) { success } }',
    (i) => ({
      id: i.webhookEndpoint,
    }),
  ),
  'GraphQL Mutation.deleteWebhookEndpoint': gqlNothing('mutation($id: String!) { deleteWebhookEndpoint(id: $id) { success } }', (i) => ({
    id: i.webhookEndpoint,
  })),
  'GraphQL Mutation.rotateWebhookEndpointSecret': gqlNothing('mutation($id: String!) { rotateWebhookEndpointSecret(id: $id) { success secret } }', (i) => ({
    id: i.webhookEndpoint,
  })),
  'GraphQL Mutation.sendTestWebhookEvent': gqlNothing('mutation($id: String!) { sendTestWebhookEvent(id: $id) { success } }', (i) => ({
    id: i.webhookEndpoint,
  })),
  'GraphQL Mutation.redeliverWebhookEvents': gqlNothing(
    'mutation($id: String!) { redeliverWebhookEvents(id: $id, from: "2020-01-01T00:00:00Z") { success count } }',
    (i) => ({ id: i.webhookEndpoint }),
  ),
  'REST GET /webhooks': (c) => emptyList(c.rest(`/webhooks?id=${c.ids.webhookEndpoint}`)),
  'REST GET /webhooks/{id}': (c) => status(c.rest(`/webhooks/${c.ids.webhookEndpoint}`), 404),
  'REST PUT /webhooks/{id}': (c) => status(c.rest(`/webhooks/${c.ids.webhookEndpoint}`, { method: 'PUT', body: JSON.stringify({ enabled: false }) }), 404),
  'REST DELETE /webhooks/{id}': (c) => status(c.rest(`/webhooks/${c.ids.webhookEndpoint}`, { method: 'DELETE' }), 404),
  'REST GET /webhooks/{id}/deliveries': (c) => emptyList(c.rest(`/webhooks/${c.ids.webhookEndpoint}/deliveries`)),
  // One delivery of A's endpoint: A's suite queued none, so an id of the right form stands in.
  'REST GET /webhooks/{id}/deliveries/{deliveryId}': (c) => status(c.rest(`/webhooks/${c.ids.webhookEndpoint}/deliveries/${STAND_IN_UUID}`), 404),
  'GraphQL Query.webhookDelivery': gqlNothing('query($e: String!, $d: String!) { webhookDelivery(endpointId: $e, id: $d) { id } }', (i) => ({
    e: i.webhookEndpoint,
    d: STAND_IN_UUID,
  })),
  // Emergency overrides: A's is unknown to B; B's override may not name A's screens or media.
  'REST GET /overrides/{id}': (c) => status(c.rest(`/overrides/${c.ids.override}`), 404),
  'REST POST /overrides/{id}/cancel': (c) => status(c.rest(`/overrides/${c.ids.override}/cancel`, { method: 'POST' }), 404),
  'GraphQL Query.override': gqlNothing('query($id: ID!) { override(id: $id) { id } }', (i) => ({ id: i.override })),
  // CAP feeds: A's is unknown to B; B's feed may not name A's screens or groups.
  'REST GET /cap-feeds/{id}': (c) => status(c.rest(`/cap-feeds/${c.ids.capFeed}`), 404),
  'REST PUT /cap-feeds/{id}': (c) => status(c.rest(`/cap-feeds/${c.ids.capFeed}`, { method: 'PUT', body: JSON.stringify({ enabled: true }) }), 404),
  'REST DELETE /cap-feeds/{id}': (c) => status(c.rest(`/cap-feeds/${c.ids.capFeed}`, { method: 'DELETE' }), 404),
  'REST POST /cap-feeds/{id}/poll': (c) => status(c.rest(`/cap-feeds/${c.ids.capFeed}/poll`, { method: 'POST' }), 404),
  'GraphQL Query.capFeed': gqlNothing('query($id: ID!) { capFeed(id: $id) { id } }', (i) => ({ id: i.capFeed })),
  'GraphQL Mutation.updateCapFeed': gqlNothing('mutation($id: ID!) { updateCapFeed(id: $id, input: { enabled: true }) { success } }', (i) => ({
    id: i.capFeed,
  })),
  'GraphQL Mutation.deleteCapFeed': gqlNothing('mutation($id: ID!) { deleteCapFeed(id: $id) { success } }', (i) => ({ id: i.capFeed })),
  'GraphQL Mutation.pollCapFeed': gqlNothing('mutation($id: ID!) { pollCapFeed(id: $id) { success } }', (i) => ({ id: i.capFeed })),
  'GraphQL Mutation.createCapFeed': gqlNothing(
    'mutation($d: [String!], $g: [String!]) { a: createCapFeed(input: { name: "B", url: "http://feeds.example.invalid/b.xml", target: { deviceIds: $d } }) { success } b: createCapFeed(input: { name: "B", url: "http://feeds.example.invalid/b.xml", target: { groupIds: $g } }) { success } }',
    (i) => ({ d: [i.device], g: [i.deviceGroup] }),
  ),
  'GraphQL Mutation.cancelOverride': gqlNothing('mutation($id: ID!) { cancelOverride(id: $id) { success } }', (i) => ({ id: i.override })),
  'GraphQL Mutation.startOverride': gqlNothing(
    'mutation($d: [String!], $m: String) { a: startOverride(input: { name: "B", content: { type: MESSAGE, text: "B" }, target: { deviceIds: $d } }) { success } b: startOverride(input: { name: "B", content: { type: MEDIA, mediaId: $m }, target: { all: true } }) { success } }',
    (i) => ({ d: [i.device], m: i.media }),
  ),
  // Power schedules: A's is unknown to B; B's may not target A's device or group, nor read A's device's display.
  'REST GET /power-schedules/{id}': (c) => status(c.rest(`/power-schedules/${c.ids.powerSchedule}`), 404),
  'REST DELETE /power-schedules/{id}': (c) => status(c.rest(`/power-schedules/${c.ids.powerSchedule}`, { method: 'DELETE' }), 404),
  'REST GET /devices/{id}/power': (c) => status(c.rest(`/devices/${c.ids.device}/power`), 404),
  'GraphQL Query.powerSchedule': gqlNothing('query($id: ID!) { powerSchedule(id: $id) { id } }', (i) => ({ id: i.powerSchedule })),
  'GraphQL Query.devicePower': gqlNothing('query($d: ID!) { devicePower(deviceId: $d) { displayOn } }', (i) => ({ d: i.device })),
  'GraphQL Mutation.deletePowerSchedule': gqlNothing('mutation($id: ID!) { deletePowerSchedule(id: $id) { success } }', (i) => ({ id: i.powerSchedule })),
  'GraphQL Mutation.setPowerSchedule': gqlNothing(
    'mutation($d: String, $g: String) { a: setPowerSchedule(input: { target: { deviceId: $d }, windows: [] }) { success } b: setPowerSchedule(input: { target: { groupId: $g }, windows: [] }) { success } }',
    (i) => ({ d: i.device, g: i.deviceGroup }),
  ),
  'REST POST /webhooks/{id}/rotate-secret': (c) =>
    status(c.rest(`/webhooks/${c.ids.webhookEndpoint}/rotate-secret`, { method: 'POST', body: JSON.stringify({ overlap_seconds: 0 }) }), 404),
  'REST POST /webhooks/{id}/test': (c) => status(c.rest(`/webhooks/${c.ids.webhookEndpoint}/test`, { method: 'POST' }), 404),
  'REST POST /webhooks/{id}/redeliver': (c) =>
    status(c.rest(`/webhooks/${c.ids.webhookEndpoint}/redeliver`, { method: 'POST', body: JSON.stringify({ from: '2020-01-01T00:00:00Z' }) }), 404),
  // B's stream filtered to A's device opens (the filter names no event of B's) and carries nothing;
  // resuming after an id B's log does not hold is a 410, never A's events.
  'REST GET /events/stream': async (c) => {
    const ctl = new AbortController();
    const res = await c.rest(`/events/stream?device_id=${encodeURIComponent(c.ids.device)}`, { signal: ctl.signal });
    if (res.status !== 200) throw new Error(`stream answered ${res.status}`);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    ctl.abort();
    if (first.includes('data:')) throw new Error(`B's stream carried an event: ${first.slice(0, 200)}`);
    await status(c.rest(`/events/stream?device_id=${encodeURIComponent(c.ids.device)}&last_event_id=evt_00000000000000000000000000`), 410);
  },
  'GraphQL Mutation.revokeApiKey': gqlNothing('mutation($k: String!) { revokeApiKey(id: $k) { success } }', (i) => ({ k: i.apiKey })),

  // Content: every id (the item, its group, a parent group, a playlist's file or source) of A's is refused.
  'GraphQL Mutation.createMediaFromUrl': gqlNothing(
    'mutation($g: String) { createMediaFromUrl(input: { url: "https://example.com/a.png", groupId: $g }) { success } }',
    (i) => ({ g: i.mediaGroup }),
  ),
  'GraphQL Mutation.updateMedia': gqlNothing('mutation($m: ID!, $g: String) { a: updateMedia(id: $m, input: { name: "B was here" }) { success } }', (i) => ({
    m: i.media,
  })),
  ...gqlPatchDeleteCases('Media', 'media'),
  ...gqlGroupCases('Media', 'mediaGroup'),
  'GraphQL Mutation.createPlaylist': gqlNothing('mutation($g: String) { createPlaylist(input: { name: "B in A group", groupId: $g }) { success } }', (i) => ({
    g: i.playlistGroup,
  })),
  'GraphQL Mutation.updatePlaylist': gqlNothing(
    'mutation($p: ID!) { updatePlaylist(id: $p, input: { name: "B was here", type: MULTIMEDIA }) { success } }',
    (i) => ({ p: i.playlist }),
  ),
  ...gqlPatchDeleteCases('Playlist', 'playlist'),
  'GraphQL Mutation.addPlaylistSource': gqlNothing(
    'mutation($p: ID!, $m: ID!) { addPlaylistSource(input: { playlistId: $p, fileId: $m, interval: 5 }) { success } }',
    (i) => ({ p: i.playlist, m: i.media }),
  ),
  'GraphQL Mutation.addPlaylistWebPage': gqlNothing(
    'mutation($p: ID!) { addPlaylistWebPage(input: { playlistId: $p, url: "https://example.com/b" }) { success } }',
    (i) => ({ p: i.playlist }),
  ),
  'GraphQL Mutation.updatePlaylistSource': gqlNothing(
    'mutation($p: ID!) { updatePlaylistSource(input: { playlistId: $p, sourceId: "s", name: "B" }) { success } }',
    (i) => ({ p: i.playlist }),
  ),
  'GraphQL Mutation.removePlaylistSource': gqlNothing('mutation($p: ID!) { removePlaylistSource(playlistId: $p, sourceId: "s") { success } }', (i) => ({
    p: i.playlist,
  })),
  'GraphQL Mutation.reorderPlaylistSources': gqlNothing(
    'mutation($p: ID!) { reorderPlaylistSources(input: { playlistId: $p, sourceIds: [] }) { success } }',
    (i) => ({ p: i.playlist }),
  ),
  ...gqlGroupCases('Playlist', 'playlistGroup'),
  // A's group, A's playlist in a module, A's data table in a module (a menu board): each refused.
  'GraphQL Mutation.createTemplate': gqlNothing(
    'mutation($g: String, $p: String, $d: String) { a: createTemplate(input: { name: "B", width: 100, height: 100, groupId: $g }) { success } b: createTemplate(input: { name: "B", width: 100, height: 100, modules: [{ left: 0, top: 0, width: 10, height: 10, playlistId: $p }] }) { success } c: createTemplate(input: { name: "B", width: 100, height: 100, modules: [{ left: 0, top: 0, width: 10, height: 10, dataTableId: $d }] }) { success } }',
    (i) => ({ g: i.templateGroup, p: i.playlist, d: i.dataTable }),
  ),
  'GraphQL Mutation.updateTemplate': gqlNothing(
    'mutation($t: ID!) { updateTemplate(id: $t, input: { name: "B was here", width: 100, height: 100, modules: [] }) { success } }',
    (i) => ({ t: i.template }),
  ),
  ...gqlPatchDeleteCases('Template', 'template', false),
  ...gqlGroupCases('Template', 'templateGroup'),

  // Lists and counts filtered by `where` on A's ids (and A's groups as parents): nothing of A's.
  'GraphQL Query.mediaGroups': gqlWhere('mediaGroups', { id: 'mediaGroup', parentId: 'mediaGroup' }),
  'GraphQL Query.playlist': gqlWhere('playlist', { id: 'playlist', groupId: 'playlistGroup' }),
  'GraphQL Query.playlistCount': gqlWhere('playlistCount', { id: 'playlist', groupId: 'playlistGroup' }, ''),
  'GraphQL Query.playlistGroups': gqlWhere('playlistGroups', { id: 'playlistGroup', parentId: 'playlistGroup' }),
  'GraphQL Query.template': gqlWhere('template', { id: 'template', groupId: 'templateGroup' }),
  'GraphQL Query.templateCount': gqlWhere('templateCount', { id: 'template', groupId: 'templateGroup' }, ''),
  'GraphQL Query.templateGroups': gqlWhere('templateGroups', { id: 'templateGroup', parentId: 'templateGroup' }),
  'GraphQL Query.dataTables': gqlWhere('dataTables', { id: 'dataTable' }, ' { data { id } }'),
  'GraphQL Query.deviceGroups': gqlWhere('deviceGroups', { id: 'deviceGroup', parentId: 'deviceGroup' }),
  'GraphQL Query.alertRules': gqlWhere('alertRules', { id: 'alertRule' }),
  'GraphQL Query.scheduleGroups': gqlWhere('scheduleGroups', { id: 'scheduleGroup', parentId: 'scheduleGroup' }),
  // A pairing code A claimed: B can neither read the waiting screen nor claim it (a claimed code is
  // unknown to everyone); the screen's poll is scoped by its secret alone.
  'REST GET /devices/claim/{code}': (c) => status(c.rest(`/devices/claim/${c.ids.pairingCode}`), 404),
  'GraphQL Query.pairingRequest': gqlNothing('query($c: String!) { pairingRequest(code: $c) { code } }', (i) => ({ c: i.pairingCode })),
  'REST GET /player/pairings/{secret}': (c) => status(fetch(`${c.base}/player/pairings/not-a-secret-of-any-pairing-0123`), 404),

  // ---- legacy
  // The path names a dataset, not an object; A's device and file ids as filters answer B nothing.
  'legacy GET /analytics/:dataset': (c) =>
    emptyList(
      fetch(
        `${c.legacy}/analytics/mediaplaystats?api_key=${encodeURIComponent(c.keyB)}&format=json&startDate=2020-01-01&endDate=2030-01-01&deviceId=${encodeURIComponent(c.ids.device)}&fileId=${encodeURIComponent(c.ids.media)}&groupByDevice=true`,
      ),
    ),
  'legacy GET /devices/:id': (c) => status(legacyCall(c, 'GET', `/devices/${c.ids.device}`), 404),
  'legacy PUT /devices/:id': (c) => status(legacyCall(c, 'PUT', `/devices/${c.ids.device}`, { name: 'B was here' }), 404),
  'legacy POST /devices/:id': (c) => status(legacyCall(c, 'POST', `/devices/${c.ids.device}`, { name: 'B was here' }), 404),
  'legacy DELETE /devices/:id': (c) => status(legacyCall(c, 'DELETE', `/devices/${c.ids.device}`), 404),
  'legacy PUT /devices/groups/:id': (c) => status(legacyCall(c, 'PUT', `/devices/groups/${c.ids.deviceGroup}`, { name: 'B was here' }), 404),
  'legacy DELETE /devices/groups/:id': (c) => status(legacyCall(c, 'DELETE', `/devices/groups/${c.ids.deviceGroup}`), 404),
  'legacy GET /media/:id': (c) => status(legacyCall(c, 'GET', `/media/${c.ids.media}`), 404),
  'legacy GET /playlists/:id': (c) => status(legacyCall(c, 'GET', `/playlists/${c.ids.playlist}`), 404),
  'legacy GET /templates/:id': (c) => status(legacyCall(c, 'GET', `/templates/${c.ids.template}`), 404),
  // Data tables: A's table and its row.
  'legacy GET /datatables/:tableId': (c) => status(legacyCall(c, 'GET', `/datatables/${c.ids.rowTable}`), 404),
  'legacy GET /datatables/:tableId/rows': (c) => status(legacyCall(c, 'GET', `/datatables/${c.ids.rowTable}/rows`), 404),
  'legacy POST /datatables/:tableId/rows': (c) => status(legacyCall(c, 'POST', `/datatables/${c.ids.rowTable}/rows`, { data: {} }), 404),
  'legacy GET /datatables/:tableId/rows/:rowId': (c) => status(legacyCall(c, 'GET', `/datatables/${c.ids.rowTable}/rows/${c.ids.row}`), 404),
  'legacy PUT /datatables/:tableId/rows/:rowId': (c) => status(legacyCall(c, 'PUT', `/datatables/${c.ids.rowTable}/rows/${c.ids.row}`, { data: {} }), 404),
  'legacy POST /datatables/:tableId/rows/:rowId': (c) => status(legacyCall(c, 'POST', `/datatables/${c.ids.rowTable}/rows/${c.ids.row}`, { data: {} }), 404),
  'legacy DELETE /datatables/:tableId/rows/:rowId': (c) => status(legacyCall(c, 'DELETE', `/datatables/${c.ids.rowTable}/rows/${c.ids.row}`), 404),
};
