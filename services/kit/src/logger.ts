import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths never logged: credentials in headers, query strings and bodies. */
export const REDACT_PATHS = [
  'req.headers["x-service-apikey"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-service-apikey"]',
  'headers.authorization',
  'apiKey',
  'api_key',
  'password',
  'token',
  '*.apiKey',
  '*.api_key',
  '*.password',
  '*.token',
];

/** Replaces credentials carried in a URL so request logs never hold them. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:api_key|access_token|token)=)[^&#]*/gi, '$1[Redacted]');
}

export function createLogger(options: { level?: string; name?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      name: options.name,
      redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination as pino.DestinationStream | undefined,
  );
}
