/** `npm start`'s demo with the built-in player simulator: online devices, live ping data, an alert, commands acknowledged. */
import { harnessForTests } from './harness.js';

const h = harnessForTests({ SIGNAGE_SIMULATOR: 'true', SIGNAGE_SIMULATOR_SECONDS: '1' });

const until = async <T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 200));
  }
};

test('simulated screens ping: six online with ping data and a screenshot, the hot one raises High CPU', async () => {
  const alert = await until(async () => {
    const r = await h.gql('{ alert(activeOnly: true) { alertRule { name } devices { name pingData { cpuUsage } } } }');
    return (r.body.data?.alert as { alertRule: { name: string }; devices: { pingData: { cpuUsage: number } }[] }[]).find(
      (a) => a.alertRule.name === 'High CPU',
    );
  });
  expect(alert.devices[0]!.pingData.cpuUsage).toBeGreaterThan(90);
  // The screens ping one by one: wait for the whole first round (six online, each with its screenshot).
  type Screen = { snap: string | null; pingData: { osVersion: string | null } };
  const online = await until(async () => {
    const list = await h.gql('{ device(where: { isOnline: { eq: true } }, includeSnap: true) { name snap pingData { osVersion timestamp } } }');
    const screens = list.body.data?.device as Screen[];
    return screens.length >= 6 && screens.every((d) => d.snap) ? screens : undefined;
  });
  expect(online).toHaveLength(6);
  expect(online.every((d) => d.pingData.osVersion && d.snap && Buffer.from(d.snap, 'base64')[0] === 0xff)).toBe(true);
});

test('a command to a simulated screen is delivered and acknowledged', async () => {
  const d = (await h.gql('{ device(where: { isOnline: { eq: true } }, limit: 1) { id } }')).body.data?.device[0] as { id: string };
  await h.gql('mutation($d: String!) { sendDeviceCommand(deviceId: $d, commands: [{ command: "screenshot" }]) { success } }', { variables: { d: d.id } });
  const status = await until(async () => {
    const r = await h.gql('query($d: String!) { deviceCommands(deviceId: $d, limit: 1) { status } }', { variables: { d: d.id } });
    const s = (r.body.data?.deviceCommands as { status: string }[])[0]?.status;
    return s === 'ACKNOWLEDGED' ? s : undefined;
  });
  expect(status).toBe('ACKNOWLEDGED');
});
