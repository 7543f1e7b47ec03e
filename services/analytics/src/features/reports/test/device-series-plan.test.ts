/** planDeviceSeries (the device_uptime export's device list): a list cut at the cap by either source is refused, never silently short. */
import type { AnalyticsStore, Principal } from '@pylon/kit';
import type { ReportDirectory } from '../../../ports/report-directory.js';
import { MAX_SERIES_DEVICES, planDeviceSeries } from '../device-series-report.js';
import type { ReportRequest } from '../../../domain/reports/report.js';

const caller = { accountId: 'acc-a' } as Principal;
const req: ReportRequest = {
  accountId: 'acc-a',
  format: 'CSV',
  interval: 'Day',
  from: new Date('2026-05-01T00:00:00Z'),
  to: new Date('2026-05-02T00:00:00Z'),
  timeOfDay: null,
  deviceIds: [],
  mediaIds: [],
};
/** `live` devices named by the directory (at most what is asked for), `pinged` ids from the store (likewise). */
function deps(live: number, pinged: string[]) {
  const asked: number[] = [];
  const directory = {
    listDevices: async (_c: Principal, max: number) => {
      asked.push(max);
      return new Map(Array.from({ length: Math.min(live, max) }, (_, i) => [`d${String(i).padStart(6, '0')}`, `Screen ${i}`]));
    },
  } as unknown as ReportDirectory;
  const analytics = { query: async () => pinged.map((device_id) => ({ device_id })) } as unknown as AnalyticsStore;
  return { directory, analytics, asked };
}

test('an account with one device more than the cap is refused (the directory is asked for cap + 1)', async () => {
  const d = deps(MAX_SERIES_DEVICES + 5, []);
  await expect(planDeviceSeries(d, caller, req, new Date('2026-06-01T00:00:00Z'))).rejects.toMatchObject({ details: { field: 'device_id' } });
  expect(d.asked).toEqual([MAX_SERIES_DEVICES + 1]);
});

test('live and pinged devices together over the cap are refused; under it each is listed once, a gone one by its id', async () => {
  const d = deps(MAX_SERIES_DEVICES, ['d000000', 'gone-device']);
  await expect(planDeviceSeries(d, caller, req, new Date('2026-06-01T00:00:00Z'))).rejects.toMatchObject({ details: { field: 'device_id' } });
  const small = deps(3, ['d000000', 'gone-device']);
  const plan = await planDeviceSeries(small, caller, req, new Date('2026-06-01T00:00:00Z'));
  expect([...plan.devices]).toEqual([
    ['d000000', 'Screen 0'],
    ['d000001', 'Screen 1'],
    ['d000002', 'Screen 2'],
    ['gone-device', 'gone-device'],
  ]);
});
