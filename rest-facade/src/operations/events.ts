/** GET /events/stream: the account's events as Server-Sent Events, served by the events handler (x-pylon-handler: events). */
import { documented, errors, json, md, ref } from './route.js';

export const streamEvents = documented('GET /events/stream', {
  tags: ['Webhooks'],
  'x-pylon-handler': 'events',
  summary: "The account's push events, live, as Server-Sent Events.",
  description: md(
    'Each event of the catalogue (README "Push events") as one SSE message: `id` (the event id),',
    '`event` (its type), `data` (the event as JSON: id, type, timestamp, account_id, data). Only',
    'types whose policy the caller holds are sent (device events need Devices_View, etc.); 403',
    'when none is readable. `Last-Event-ID` (header, or `last_event_id`) resumes right after that',
    "event from the durable log (kept 24 hours); an id that is not in the account's log answers",
    '410, so a gap never goes unnoticed. Without it the stream starts with the next event. A',
    'comment line every 15 seconds keeps idle connections open.',
  ),
  parameters: [
    {
      name: 'types',
      in: 'query',
      description: 'Comma-separated catalogue event types; only these are sent.',
      schema: { type: 'string', maxLength: 2000 },
    },
    {
      name: 'device_id',
      in: 'query',
      description: 'Only events naming this device (repeatable or comma-separated, at most 100).',
      style: 'form',
      explode: true,
      schema: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 100 } },
    },
    {
      name: 'last_event_id',
      in: 'query',
      description: 'Resume after this event (for clients that cannot send the Last-Event-ID header).',
      schema: { type: 'string', maxLength: 100 },
    },
    {
      name: 'Last-Event-ID',
      in: 'header',
      description: "Resume after this event (browsers' EventSource sends it on reconnect).",
      schema: { type: 'string', maxLength: 100 },
    },
  ],
  responses: {
    '200': {
      description: 'The stream (never ends by itself).',
      content: {
        'text/event-stream': {
          schema: {
            type: 'string',
            description: 'SSE messages: `id: evt_...`, `event: device.offline`, `data: {"id":...,"type":...,"timestamp":...,"account_id":...,"data":{...}}`.',
          },
        },
      },
    },
    '410': {
      description: "The Last-Event-ID is not in the account's log (unknown, or older than 24 hours).",
      content: json(ref('Error')),
    },
    ...errors(400, 401, 403, 429),
  },
});
