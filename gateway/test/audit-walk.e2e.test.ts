/**
 * Every interface's successful and failed reads and writes through the audit trail (GraphQL, REST,
 * legacy, which only reads): each lands with the right eventType and status; with AUDIT_READS=false
 * only the non-reads do. (A request refused before it authenticates, e.g. by REST body validation, is
 * recorded without an account, so the account's trail does not show it.)
 */
import { harnessForTests, TEST_KEY, type Harness } from './harness.js';

interface Event {
  event_type: string;
  http_method: string;
  action_name: string;
  response_code: number;
  interface: string;
}

async function walk(h: Harness): Promise<void> {
  const key = { 'x-service-apikey': TEST_KEY };
  const json = { ...key, 'content-type': 'application/json' };
  const gql = (query: string, operationName: string) =>
    fetch(`${h.baseUrl}/graphql`, { method: 'POST', headers: json, body: JSON.stringify({ query, operationName }) });
  await gql('query walkRead { account { id } }', 'walkRead');
  await gql('query walkReadFail { noSuchField }', 'walkReadFail');
  await gql('mutation walkWrite { updateAccount(input: { city: "Delft" }) { success } }', 'walkWrite');
  await gql('mutation walkWriteFail { noSuchMutation }', 'walkWriteFail');
  await fetch(`${h.baseUrl}/devices?take=1`, { headers: key });
  await fetch(`${h.baseUrl}/devices/no-such-device`, { headers: key });
  await fetch(`${h.baseUrl}/playlists`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'Walk' }) });
  await fetch(`${h.baseUrl}/playlists/no-such-playlist`, { method: 'DELETE', headers: key });
  await fetch(`${h.legacyUrl}/account?api_key=${TEST_KEY}`);
  await fetch(`${h.legacyUrl}/devices/no-such-device?api_key=${TEST_KEY}`);
}

async function events(h: Harness, until: (e: Event[]) => boolean): Promise<Event[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await fetch(`${h.baseUrl}/account/auditevents?limit=1000`, { headers: { 'x-service-apikey': TEST_KEY } });
    const body = (await res.json()) as Event[];
    if (until(body)) return body;
    if (Date.now() > deadline) {
      const seen = body
        .filter((e) => e.action_name !== 'listAuditEvents')
        .map((e) => `${e.interface} ${e.http_method} ${e.action_name} ${e.response_code} ${e.event_type}`);
      throw new Error(`audit events never matched; recorded:\n${seen.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

const summary = (e: Event) => `${e.interface} ${e.http_method} ${e.action_name} ${e.response_code} ${e.event_type}`;

describe('reads recorded (default)', () => {
  const h = harnessForTests();

  test('successful and failed reads and writes of every interface, each with its eventType', async () => {
    await walk(h);
    const expected = [
      'graphql POST walkRead 200 Read',
      'graphql POST walkReadFail 400 Read',
      'graphql POST walkWrite 200 Write',
      'graphql POST walkWriteFail 400 Write',
      'rest GET listDevices 200 Read',
      'rest GET getDevice 404 Read',
      'rest POST createPlaylist 201 Write',
      'rest DELETE deletePlaylist 404 Write',
      'legacy GET getAccount 200 Read',
      'legacy GET getDevice 404 Read',
    ];
    await events(h, (e) => expected.every((x) => e.map(summary).includes(x)));
  });
});

describe('AUDIT_READS=false', () => {
  const h = harnessForTests({ AUDIT_READS: 'false' });

  test('writes and failures of writes are recorded, reads (successful or not) are not', async () => {
    await walk(h);
    const got = await events(h, (e) => ['walkWrite', 'walkWriteFail', 'createPlaylist', 'deletePlaylist'].every((a) => e.some((x) => x.action_name === a)));
    expect(got.filter((e) => e.event_type === 'Read').map(summary)).toEqual([]);
  });
});
