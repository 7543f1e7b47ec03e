/** GET/DELETE /jobs/{id} and its result: background jobs, served by the jobs handler (x-pylon-handler: jobs). */
import { answers, documented, errors, FILE_CONTENT, json, md, ref } from './route.js';

export const getJobResult = documented('GET /jobs/{id}/result', {
  tags: ['Jobs'],
  'x-pylon-handler': 'jobs',
  security: [],
  summary: "Download a finished job's file through its signed link.",
  description: md(
    'The address comes from the job (`result.download_url`, also `links.result`): it carries its',
    "expiry and an HMAC signature over the job id and the expiry, made with the server's secret, so",
    'it works without an API key (do not share it further than the file). A signature that does',
    'not match is 403 naming `signature`; an expired link is 403 naming `expires` (GET /jobs/{id}',
    'with the key signs a new one, valid JOB_RESULT_LINK_SECONDS, default 3600); a file removed',
    'after its retention (JOB_RESULT_RETENTION_SECONDS, default 86400) or of a cancelled job is 404.',
    'The file is streamed with its Content-Type and Content-Disposition.',
  ),
  parameters: [
    { name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: 100 } },
    { name: 'expires', in: 'query', required: true, description: 'Unix seconds.', schema: { type: 'string', pattern: '^[0-9]{1,12}$' } },
    { name: 'signature', in: 'query', required: true, schema: { type: 'string', maxLength: 100 } },
  ],
  responses: {
    '200': {
      description: 'The file, as an attachment.',
      content: FILE_CONTENT,
    },
    ...errors(403, 404),
  },
});

export const getJob = documented('GET /jobs/{id}', {
  tags: ['Jobs'],
  'x-pylon-handler': 'jobs',
  summary: "A background job of the caller's account.",
  description: md(
    'State (queued, running, succeeded, failed, cancelled), progress (rows done of the total, once',
    'counted), the first 100 row errors, and the result when finished. A job survives a restart of',
    "the service: an unfinished one continues from its last committed chunk. Another account's job",
    "is a 404. Policy: that of the job's work (an import: DataTables_View).",
  ),
  parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: 100 } }],
  responses: answers('The job.', ref('Job'), 401, 403, 404),
});

export const cancelJob = documented('DELETE /jobs/{id}', {
  tags: ['Jobs'],
  'x-pylon-handler': 'jobs',
  summary: 'Cancel a job.',
  description: md(
    'A queued job is cancelled at once, a running one after its current chunk (rows already',
    "imported stay); a finished job is answered as it is. Policy: that of the job's work (an",
    'import: DataTables_Edit).',
  ),
  parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: 100 } }],
  responses: {
    '202': { description: 'The job, as it is now.', content: json(ref('Job')) },
    ...errors(401, 403, 404),
  },
});
