/** POST /devices/bulk and GET /devices/bulk/{id}/results: fleet-wide bulk jobs (devices features/bulk). */
import { notFound, payloadAt } from '@pylon/kit';
import { restOp } from './declare.js';
import { gql } from './gql.js';
import { errors, json, md, route } from './route.js';
import type { RestRequestBodyOf } from './types.js';

const ACTIONS = ['add_tags', 'remove_tags', 'move_to_group', 'send_commands', 'assign_schedule', 'unassign_schedule'];
const STATES = ['pending', 'ok', 'failed'];
const text = { type: 'string', minLength: 1, maxLength: 200 } as const;

export const startDeviceBulkJob = route(
  'POST /devices/bulk',
  {
    tags: ['Devices'],
    summary: 'Change every device a selector matches, as a job (or count them first).',
    description: md(
      'One `action` over the devices `selector` matches: `ids` (any number within the 1,000,000-byte',
      'body limit, about 25,000 UUIDs; a larger body is 413 PAYLOAD_TOO_LARGE), `tags` and `group_ids`',
      '(any of them), `where` (the GraphQL `DeviceFilterInput`, as `Query.device` takes it), combined',
      'with AND, or `all: true` alone. Actions: add_tags / remove_tags (`tags`), move_to_group',
      '(`group_id`, null: out of every group), send_commands (`commands`, delivered on each',
      "device's next ping), assign_schedule / unassign_schedule (`schedule_id`; a schedule lists at",
      'most 1,000 devices). With `dry_run: true` the targets are counted and sampled (200) and',
      'nothing changes; else the job is queued (202): follow it at `GET /jobs/{id}` (progress, the',
      'first 100 failures), its per-device results at `GET /devices/bulk/{id}/results`, cancel it',
      "with `DELETE /jobs/{id}`. Another account's ids are reported per id as not found and never",
      'touched. At most 100,000 devices per job. Policy: Devices_View, and Devices_Edit (tags,',
      'group, commands) or Schedules_Edit (schedule assignment).',
    ),
    requestBody: {
      required: true,
      content: json({
        type: 'object',
        required: ['selector', 'action'],
        properties: {
          selector: {
            type: 'object',
            properties: {
              all: { type: 'boolean' },
              ids: { type: 'array', items: text },
              tags: { type: 'array', maxItems: 100, items: text },
              group_ids: { type: 'array', maxItems: 100, items: text },
              where: { type: 'object', description: 'A GraphQL DeviceFilterInput (e.g. {"location": {"city": {"eq": "Oslo"}}}).' },
            },
          },
          action: { type: 'string', enum: ACTIONS },
          tags: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 100 } },
          group_id: { type: 'string', nullable: true, maxLength: 200 },
          commands: {
            type: 'array',
            maxItems: 20,
            items: { type: 'object', required: ['command'], properties: { command: { type: 'string' }, arg: { type: 'string', nullable: true } } },
          },
          schedule_id: text,
          dry_run: { type: 'boolean', default: false },
        },
      }),
    },
    responses: {
      '200': {
        description: 'The dry run: how many devices the job would change, and a sample.',
        content: json({
          type: 'object',
          properties: {
            dry_run: {
              type: 'object',
              properties: {
                targets: { type: 'integer' },
                not_found: { type: 'integer' },
                sample: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } } },
                not_found_sample: { type: 'array', items: { type: 'string' } },
              },
            },
          },
        }),
      },
      '202': {
        description: 'Queued: the job to follow.',
        content: json({
          type: 'object',
          properties: {
            job_id: { type: 'string' },
            links: { type: 'object', properties: { self: { type: 'string' }, results: { type: 'string' } } },
          },
        }),
      },
      ...errors(400, 401, 403, 413, 422, 429, 500, 503),
    },
  },
  restOp('startDeviceBulkJob', {
    document: gql`
      # POST /devices/bulk.
      mutation startDeviceBulkJob($input: DeviceBulkJobInput!) {
        startDeviceBulkJob(input: $input) {
          ...RestOutcome
          jobId
          link
          dryRun {
            targets
            notFound
            notFoundSample
            sample {
              id
              name
            }
          }
        }
      }
    `,
    variables: ({ body }) => {
      // rest.yaml requires the object body and its selector (OpenAPI validation ran).
      const b = body as RestRequestBodyOf<'startDeviceBulkJob'>;
      const s = b.selector;
      const action = typeof b.action === 'string' ? b.action.toUpperCase() : b.action;
      return {
        input: {
          selector: { all: s.all, ids: s.ids, tags: s.tags, groupIds: s.group_ids, where: s.where },
          action,
          tags: b.tags,
          ...('group_id' in b ? { groupId: b.group_id } : {}),
          commands: b.commands,
          scheduleId: b.schedule_id,
          dryRun: b.dry_run,
        },
      };
    },
    respond(data) {
      const p = payloadAt(data, 'startDeviceBulkJob', {
        groupId: 'group_id',
        scheduleId: 'schedule_id',
        'selector.groupIds': 'selector.group_ids',
        dryRun: 'dry_run',
      }) as NonNullable<typeof data.startDeviceBulkJob>;
      if (p.dryRun) {
        const d = p.dryRun;
        return { body: { dry_run: { targets: d.targets, not_found: d.notFound, sample: d.sample, not_found_sample: d.notFoundSample } } };
      }
      const id = String(p.jobId);
      return { status: 202, body: { job_id: id, links: { self: `/jobs/${id}`, results: `/devices/bulk/${id}/results` } } };
    },
    fieldNames: { 'input.groupId': 'group_id', 'input.scheduleId': 'schedule_id', 'input.dryRun': 'dry_run', input: 'body' },
    accepts: { body: ['selector', 'action', 'tags', 'group_id', 'commands', 'schedule_id', 'dry_run'] },
  }),
);

export const listDeviceBulkJobResults = route(
  'GET /devices/bulk/{id}/results',
  {
    tags: ['Devices'],
    summary: "A bulk job's per-device results.",
    description: md(
      'In target order: `ok`, `failed` with the reason and its code (NOT_FOUND for an id that is',
      "unknown or another account's), or `pending` while the job runs (and after a cancel).",
      '`state` keeps one state; `take` (default 100, at most 1000) after `skip`. 404 for another',
      "account's or an unknown job. Policy: Devices_View (schedule jobs: Schedules_View too).",
    ),
    parameters: [
      { name: 'id', in: 'path', required: true, description: 'The job id.', schema: { type: 'string', minLength: 1, maxLength: 100 } },
      { name: 'state', in: 'query', description: 'Only results in this state.', schema: { type: 'string', enum: STATES } },
      { name: 'take', in: 'query', description: 'At most this many results.', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
      { name: 'skip', in: 'query', description: 'Results to skip first.', schema: { type: 'integer', minimum: 0, default: 0 } },
    ],
    responses: {
      '200': {
        description: 'The results.',
        content: json({
          type: 'array',
          items: {
            type: 'object',
            properties: {
              device_id: { type: 'string' },
              state: { type: 'string', enum: STATES },
              error: { type: 'string', nullable: true },
              error_code: { type: 'string', nullable: true },
            },
          },
        }),
      },
      ...errors(400, 401, 403, 404, 500),
    },
  },
  restOp('listDeviceBulkJobResults', {
    document: gql`
      # GET /devices/bulk/{id}/results.
      query listDeviceBulkJobResults($jobId: ID!, $state: DeviceBulkResultState, $limit: Int, $offset: Int) {
        deviceBulkJobResults(jobId: $jobId, state: $state, limit: $limit, offset: $offset) {
          deviceId
          state
          error
          errorCode
        }
      }
    `,
    variables: ({ params, query }) => ({
      jobId: params.id,
      state: typeof query.state === 'string' ? query.state.toUpperCase() : undefined,
      limit: query.take,
      offset: query.skip,
    }),
    respond(data, { params }) {
      if (!data.deviceBulkJobResults) throw notFound('bulk job', String(params.id));
      return {
        body: data.deviceBulkJobResults.map((r) => ({
          device_id: r.deviceId,
          state: r.state.toLowerCase(),
          error: r.error ?? null,
          error_code: r.errorCode ?? null,
        })),
      };
    },
    fieldNames: { jobId: 'id', limit: 'take', offset: 'skip' },
    accepts: { path: ['id'], query: ['state', 'take', 'skip'] },
    nullableRoots: ['deviceBulkJobResults'],
  }),
);
