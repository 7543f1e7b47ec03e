import { unescape } from 'node:querystring';
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

/**
 * A URL component as the servers read it: parameter names are percent-decoded before they are
 * matched (`api%5Fkey=` is `api_key=`), so redaction must decode too. Malformed escapes are
 * decoded leniently (as node's querystring does) instead of throwing.
 */
function decoded(part: string): string {
  const plus = part.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return unescape(plus);
  }
}

/** Parameter names that carry credentials: any name containing one of these, after decoding and ignoring case, punctuation and brackets. */
const SECRET_NAME = /key|token|password|secret|signature/;
const isSecretName = (rawName: string) =>
  SECRET_NAME.test(
    decoded(rawName)
      .toLowerCase()
      .replace(/[^a-z]/g, ''),
  );

/**
 * Values that are credentials whatever they are called (issue 34, L5: `?x=pyl_...` was logged
 * verbatim): API keys (`pyl_`), webhook secrets (`whsec_`) and JWTs (two base64url JSON parts).
 */
const SECRET_VALUE = /^\s*(pyl_|whsec_|eyJ[\w-]*\.eyJ)/;
const isSecretValue = (raw: string) => SECRET_VALUE.test(decoded(raw));

/**
 * Path segments that are credentials: the registration key in /player/{key}/... and in
 * /devices/{key}/pingdata|snap; a waiting screen's pairing secret in /player/pairings/{secret}
 * (it fetches the registration key once claimed) and its pairing code in /devices/claim/{code}.
 * Segments are compared decoded and case-insensitively, as routing does.
 */
export function redactPath(path: string): string {
  const segments = path.split('/');
  const norm = segments.map((s) => decoded(s).toLowerCase());
  for (let i = 0; i < segments.length - 1; i++) {
    if ((norm[i] === 'player' && norm[i + 1] === 'pairings') || (norm[i] === 'devices' && norm[i + 1] === 'claim')) {
      if (segments[i + 2]) segments[i + 2] = '[Redacted]';
      i += 2;
    } else if (norm[i] === 'player' || (norm[i] === 'devices' && (norm[i + 2] === 'pingdata' || norm[i + 2] === 'snap'))) {
      if (segments[i + 1]) segments[i + 1] = '[Redacted]';
      i++;
    }
  }
  return segments.map((s) => (isSecretValue(s) ? '[Redacted]' : s)).join('/');
}

/** Replaces credentials carried in a URL (query parameters and key-bearing path segments) so request logs never hold them. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = redactPath(q < 0 ? url : url.slice(0, q));
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      if (eq < 0) return isSecretValue(pair) ? '[Redacted]' : pair;
      return isSecretName(name) || isSecretValue(pair.slice(eq + 1)) ? `${name}=[Redacted]` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

/** Both loggers' options: level and name, credentials redacted, no pid/hostname, ISO timestamps. */
const baseOptions = (level: string, name: string | undefined): pino.LoggerOptions => ({
  level,
  name,
  redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
  base: undefined,
  timestamp: pino.stdTimeFunctions.isoTime,
});

/**
 * `npm start`'s logger: every line at `level` and above appended to `file` (created with its
 * directory; written synchronously, so a stop loses none), and only `consoleLevel` and above on
 * stdout, so the console keeps the banner and the one-time credentials in view (issue 35).
 */
export function createFileLogger(options: { level: string; consoleLevel: string; file: string; name?: string }): Logger {
  const severity = (l: string) => pino.levels.values[l] ?? Infinity; // 'silent': above every level
  const file = pino.destination({ dest: options.file, mkdir: true, sync: true });
  const streams = [
    { level: options.level as pino.Level, stream: file },
    { level: options.consoleLevel as pino.Level, stream: pino.destination({ dest: 1, sync: true }) },
  ].filter((s) => severity(s.level) !== Infinity);
  const lowest = streams.length ? streams.reduce((a, b) => (severity(a.level) <= severity(b.level) ? a : b)).level : 'silent';
  return pino(baseOptions(lowest, options.name), pino.multistream(streams));
}

export function createLogger(options: { level?: string; name?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  return pino(baseOptions(options.level ?? 'info', options.name), options.destination as pino.DestinationStream | undefined);
}
