/** GET /report, POST /report/export and /report/adhawk: served by the analytics service (x-pylon-handler: analytics). */
import { answers, arrayOf, documented, errors, FILE_CONTENT, jobAccepted, json, jsonBody, md, params, ref } from './route.js';

export const listReports = documented('GET /report', {
  tags: ['Report'],
  'x-pylon-handler': 'analytics',
  summary: 'The reports available for export, with their parameters.',
  description: 'Policy: Analytics_View. `id` narrows the list to that report (an unknown id gives an empty list).',
  parameters: [{ name: 'id', in: 'query', description: 'Only the report with this id.', schema: { type: 'string', minLength: 1, maxLength: 200 } }],
  responses: answers('The reports.', arrayOf('Report'), 400, 401, 403),
});

export const exportReport = documented('POST /report/export', {
  tags: ['Report'],
  'x-pylon-handler': 'analytics',
  summary: 'Generate a report and stream the file (CSV, XLSX or PDF).',
  description: md(
    'Policy: Analytics_View. `start_date` and `end_date` are required (ISO 8601; a date without a',
    'time includes that whole day; at most 400 days); `interval_type` (default Day) sets the',
    'periods of the aggregate reports and the PDF chart; `device_id` / `media_id` must be the',
    "caller's, live or recorded in the caller's telemetry (deleted since), 404 naming",
    '`device_id[i]` otherwise; `start_time` / `end_time` keep only rows whose',
    'time of day (UTC) lies between theirs. `user_id` and `activity_type` filter no report here',
    'and are refused when given. Rows are streamed as they are read (bounded memory); after the',
    'rows the file prints the row count, totals (equal to the sums of the rows) and the SHA-256 of',
    "each row's fixed facts (never a name looked up at export), with the rule to recompute it, so",
    'a re-export of the same records can be compared after renames.',
    'CSV: RFC 4180, CRLF, text cells starting with =, +, -, @, tab or CR prefixed with an',
    'apostrophe; the summary follows the first empty line. XLSX: typed cells, frozen header,',
    'number formats, a Summary sheet. PDF: summary, a bar chart, and the first 2000 rows.',
    "With `Prefer: respond-async`, or when the report's range holds more than",
    'REPORT_JOB_THRESHOLD_ROWS records (default 500,000), the request is checked in full and',
    'answered 202 with a job (Location: /jobs/{id}) that writes the same file (same digest);',
    'once it succeeded GET /jobs/{id} gives `result.download_url`, a signed link (GET',
    '/jobs/{id}/result) that works without an API key until `download_expires_on`.',
  ),
  parameters: [
    ...params('PreferAsync'),
    {
      name: 'exclude_body',
      in: 'query',
      description: 'Only false is accepted.',
      'x-reference-deviation':
        'Reports are streamed in the response and not stored, so there is no report URL to return instead of the body; exclude_body=true is refused with 400.',
      schema: { type: 'boolean' },
    },
  ],
  requestBody: jsonBody('ReportExportPostBody'),
  responses: {
    '200': {
      description: 'The file, as an attachment (Content-Disposition names it).',
      content: FILE_CONTENT,
    },
    '202': jobAccepted('The export runs as a job (Location names it); the file is downloaded through its signed link.', {
      'x-reference-deviation':
        'The reference always answers the file (200); a large or asked-for export (Prefer respond-async) is a job here, whose file is fetched through a signed link.',
    }),
    ...errors(400, 401, 403, 404, 413, 415, 429),
  },
});

export const adhawkReport = documented('POST /report/adhawk', {
  tags: ['Report'],
  'x-pylon-handler': 'analytics',
  summary: "AdHawk dataset (the reference's): not offered, answers 501.",
  description: md(
    'Policy: Analytics_View. The reference answers an AdHawk dataset here (impression, gender,',
    'age, dwell, event and network totals). Pylon does not offer these datasets: every request',
    'that passes authentication and the policy is answered 501 NOT_IMPLEMENTED with the JSON',
    'error body. The same figures come from the /analytics endpoints (audiencemetrics,',
    'impressions, eventmetrics, devicemetrics, ...), the GraphQL analytics queries, or a report',
    "file from POST /report/export. The body is the reference's AdHawkDatasetPostBody; a body that",
    'is not JSON is a 400 (415 for another content type) naming `body`.',
  ),
  requestBody: jsonBody('AdHawkDatasetPostBody'),
  responses: {
    '501': {
      description: 'AdHawk datasets are not offered (error code NOT_IMPLEMENTED); the message names where the figures come from instead.',
      'x-reference-deviation': 'The reference answers 200 with the dataset; Pylon does not offer AdHawk datasets and answers 501 NOT_IMPLEMENTED.',
      content: json(ref('Error')),
    },
    ...errors(400, 401, 403, 413, 415, 429),
  },
});
