/** The devices settings, declared once and read by both composition roots (devices main.ts, the all-in-one). */
import { z } from 'zod';
import { ConfigError, loadConfig } from '@pylon/kit';
import { devicesEnv, devicesOptions } from '../src/config.js';

test('defaults become the subgraph options', () => {
  expect(devicesOptions(loadConfig(z.object(devicesEnv), {}))).toEqual({
    onlineWindowSeconds: 600,
    settings: {
      commandTtlSeconds: 86_400,
      sweepIntervalSeconds: 60,
      maxSnapBytes: 2_000_000,
      maxPingWaitSeconds: 30,
      playerRecordMaxAgeDays: 90,
      spoolHeldRecords: true,
    },
  });
  expect(devicesOptions(loadConfig(z.object(devicesEnv), { PLAYER_RECORDS_SPOOL: 'false' })).settings?.spoolHeldRecords).toBe(false);
});

test('bad values are reported together, each naming its variable', () => {
  try {
    loadConfig(z.object(devicesEnv), { DEVICE_SWEEP_SECONDS: 'soon', DEVICE_PING_MAX_WAIT_SECONDS: '301' });
    throw new Error('parsed');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).problems).toEqual([expect.stringMatching(/^DEVICE_SWEEP_SECONDS: /), expect.stringMatching(/^DEVICE_PING_MAX_WAIT_SECONDS: /)]);
  }
});
