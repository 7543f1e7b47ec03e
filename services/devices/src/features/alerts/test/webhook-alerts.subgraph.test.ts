/**
 * A webhook endpoint disabled after persistent failure opens an alert: the devices service's
 * consumer of the push-event stream turns each webhook_endpoint.disabled event into one alert of
 * that account (readable through Query.alert, rule "Webhook endpoint disabled", no device) and an
 * alert.opened event; the same event delivered twice opens one alert; other types open none. A
 * content.running_empty event (content expiry) opens a "Content runs empty" alert per target and instant.
 */
import { createMemoryStream } from '@pylon/adapters/memory';
import { createLogger, pushEvent, PUSH_EVENTS_TOPIC, type EventStream, type PushEvent, type PushEvents, type Subscription } from '@pylon/kit';
import { until } from '@pylon/kit/testing';
import { startWebhookAlerts } from '../webhook-alerts.js';
import { principal, startFixture, type Fixture } from '../../../../test/fixtures/subgraph.js';

let f: Fixture;
let stream: EventStream;
let sub: Subscription;
const seen: PushEvent[] = [];
const events: PushEvents = { emit: (account, type, data, at) => void seen.push(pushEvent(account, type, data, at) as PushEvent) };

beforeAll(async () => {
  stream = createMemoryStream();
  f = await startFixture();
  sub = await startWebhookAlerts({ stream, alerts: f.sg.runtime.alerts, pushEvents: events, logger: createLogger({ level: 'silent' }) });
});
afterAll(async () => {
  await sub.close();
  await stream.close();
  await f.close();
});

const ALERTS = '{ alert { id reason isActive resolvedOn alertRule { name } devices { id } } }';

test('webhook_endpoint.disabled opens one alert of that account, announced as alert.opened; a repeat opens none', async () => {
  const disabled = pushEvent('acc-a', 'webhook_endpoint.disabled', {
    webhook_endpoint_id: 'we_1',
    reason: 'every delivery failed since 2026-06-01T00:00:00.000Z',
  });
  await stream.publish(PUSH_EVENTS_TOPIC, [
    { key: 'acc-a', value: pushEvent('acc-a', 'device.registered', { device_id: 'd1', device_group_id: null, device_tags: [], name: 'x' }) },
    { key: 'acc-a', value: disabled },
  ]);
  // The alert is stored before it is announced: wait for both (the consumer runs on its own schedule).
  const [alert] = await until('the alert and its alert.opened', async () => {
    const r = await f.run(ALERTS);
    const stored = (r.data?.alert as Record<string, any>[] | undefined) ?? [];
    return stored.length && seen.some((e) => e.type === 'alert.opened') ? stored : undefined;
  });
  expect(alert).toMatchObject({ isActive: true, resolvedOn: null, alertRule: { name: 'Webhook endpoint disabled' }, devices: [] });
  expect(alert!.reason).toContain('we_1');
  expect(seen.filter((e) => e.type === 'alert.opened')).toEqual([
    expect.objectContaining({ account_id: 'acc-a', data: expect.objectContaining({ alert_id: alert!.id }) }),
  ]);

  // The same event again (a redelivered message): still one alert. Another account sees none.
  await stream.publish(PUSH_EVENTS_TOPIC, [{ key: 'acc-a', value: disabled }]);
  await stream.publish(PUSH_EVENTS_TOPIC, [{ key: 'acc-a', value: pushEvent('acc-a', 'webhook.test', { webhook_endpoint_id: 'we_1', message: 'x' }) }]);
  await until('the repeats consumed', async () => (await stream.lag()).every((l) => l.lag === 0));
  expect(((await f.run(ALERTS)).data?.alert as unknown[]).length).toBe(1);
  expect(((await f.run(ALERTS, {}, principal('acc-b'))).data?.alert as unknown[]).length).toBe(0);

  // Resolved like any alert.
  const resolved = await f.run('mutation($id: ID!, $at: String!) { updateAlert(id: $id, input: { resolvedOn: $at }) { success } }', {
    id: alert!.id,
    at: '2026-06-01T12:00:00Z',
  });
  expect(resolved.data?.updateAlert).toMatchObject({ success: true });
});

test('content.running_empty opens one "Content runs empty" alert per playlist or file and instant, naming it; another account sees none', async () => {
  const before = seen.filter((e) => e.type === 'alert.opened').length;
  const lunch = { playlist_id: 'p-lunch', media_id: null, name: 'Lunch menu', runs_empty_at: '2030-01-21T00:00:00Z' };
  const file = { playlist_id: null, media_id: 'm-menu', name: 'menu.png', runs_empty_at: '2030-01-21T00:00:00Z' };
  await stream.publish(PUSH_EVENTS_TOPIC, [
    { key: 'acc-a', value: pushEvent('acc-a', 'content.running_empty', lunch) },
    { key: 'acc-a', value: pushEvent('acc-a', 'content.running_empty', file) },
    // The same instant again (another sweep's event, a redelivery): no second alert. A later instant: a new one.
    { key: 'acc-a', value: pushEvent('acc-a', 'content.running_empty', lunch) },
    { key: 'acc-a', value: pushEvent('acc-a', 'content.running_empty', { ...lunch, runs_empty_at: '2030-03-01T00:00:00Z' }) },
  ]);
  await until(
    'the events consumed',
    async () => (await stream.lag()).every((l) => l.lag === 0) && seen.filter((e) => e.type === 'alert.opened').length >= before + 3,
  );
  const all = (await f.run(ALERTS)).data?.alert as { reason: string; isActive: boolean; alertRule: { name: string }; devices: unknown[] }[];
  const runsEmpty = all.filter((a) => a.alertRule.name === 'Content runs empty');
  expect(runsEmpty.map((a) => a.reason).sort()).toEqual([
    "media file 'menu.png' (m-menu) runs empty at 2030-01-21T00:00:00Z: it expires then, and whatever plays it alone (a playlist of it only, an override showing it) shows nothing",
    "playlist 'Lunch menu' (p-lunch) runs empty at 2030-01-21T00:00:00Z: every source of it expires by then",
    "playlist 'Lunch menu' (p-lunch) runs empty at 2030-03-01T00:00:00Z: every source of it expires by then",
  ]);
  expect(runsEmpty.every((a) => a.isActive && a.devices.length === 0)).toBe(true);
  expect(seen.filter((e) => e.type === 'alert.opened')).toHaveLength(before + 3);
  expect(((await f.run(ALERTS, {}, principal('acc-b'))).data?.alert as unknown[]).length).toBe(0);
});
