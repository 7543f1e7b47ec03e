/** The facade processes' settings and audit sink (composition facade-process.ts, audit-sink.ts) through their public functions. */
import { createLogger, loadConfig } from '@pylon/kit';
import { createAuditSink } from '../src/audit-sink.js';
import { facadeProcessEnv } from '../src/facade-process.js';

const GATEWAY = { GATEWAY_URL: 'http://gateway:4000' };

describe('facade process settings', () => {
  test('defaults: the facade port, all interfaces, a 10 s gateway timeout, audit over the in-memory stream', () => {
    const env = loadConfig(facadeProcessEnv(4001), GATEWAY);
    expect(env).toMatchObject({ PORT: 4001, HOST: '0.0.0.0', GATEWAY_URL: 'http://gateway:4000', GATEWAY_TIMEOUT_MS: 10000, STREAM_DRIVER: 'memory' });
    expect(loadConfig(facadeProcessEnv(4080), GATEWAY).PORT).toBe(4080);
  });

  test('every problem is named: a missing gateway, a bad port, a timeout out of range', () => {
    expect(() => loadConfig(facadeProcessEnv(4001), {})).toThrow(/GATEWAY_URL/);
    let message = '';
    try {
      loadConfig(facadeProcessEnv(4001), { ...GATEWAY, PORT: 'eighty', GATEWAY_TIMEOUT_MS: '5' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/PORT/);
    expect(message).toMatch(/GATEWAY_TIMEOUT_MS/);
  });
});

describe('audit sink of a facade process', () => {
  test('without Kafka: no sink (and a warning), and close is harmless', async () => {
    const lines: string[] = [];
    const destination = { write: (s: string) => lines.push(s) } as unknown as NodeJS.WritableStream;
    const logger = createLogger({ level: 'warn', destination });
    const audit = await createAuditSink(loadConfig(facadeProcessEnv(4001), GATEWAY), 'pylon-rest-facade', logger);
    expect(audit.sink).toBeUndefined();
    await audit.close();
    expect(lines.join('')).toMatch(/audit events of this process are not recorded/);
  });
});
