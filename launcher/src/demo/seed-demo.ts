/**
 * Demo data for `npm start` on an empty data dir: one account with an owner who holds the API
 * role, a few nested device groups and devices that have pinged, and an API key.
 */
import { randomBytes } from 'node:crypto';
import { createAlertRule, type DeviceRepository, type DevicesRuntime } from '@pylon/devices';
import { POLICIES, type Principal } from '@pylon/kit';
import type { ContentRuntime } from '@pylon/content';
import { seedDemoContent } from './seed-demo-content.js';
import { createAccount, createApiKey, createUser, hashKey, setPassword, type IdentityRepository } from '@pylon/identity';
import { createSchedule, type SchedulingRuntime } from '@pylon/scheduling';

export const DEMO_ACCOUNT_ID = 'demo-account';
export const DEMO_OWNER_ID = 'demo-owner';

export interface DemoResult {
  created: boolean;
  /** The plain key, when one was created in this run. */
  apiKey?: string;
  /** The demo owner's sign-in password (OAuth login page), when one was set in this run. */
  password?: string;
}

const CITIES = [
  { city: 'Amsterdam', state: 'NH', country: 'NL', latitude: 52.37, longitude: 4.9 },
  { city: 'Austin', state: 'TX', country: 'US', latitude: 30.27, longitude: -97.74 },
  { city: 'Lyon', state: 'ARA', country: 'FR', latitude: 45.76, longitude: 4.84 },
];

export async function seedDemo(deps: {
  identity: IdentityRepository;
  devices: DeviceRepository;
  bootstrapKey?: string | undefined;
  password?: string | undefined;
  now?: number;
}): Promise<DemoResult> {
  const existing = await deps.identity.accounts.findById(DEMO_ACCOUNT_ID, DEMO_ACCOUNT_ID);
  if (existing) {
    // SIGNAGE_DEMO_PASSWORD set after the first start (re)sets the demo owner's sign-in password.
    if (deps.password) await setPassword(deps.identity, DEMO_ACCOUNT_ID, DEMO_OWNER_ID, deps.password);
    // A bootstrap key set after the first start is added to the demo owner.
    if (deps.bootstrapKey && !(await deps.identity.apiKeys.findByUnique('hash', [hashKey(deps.bootstrapKey)]))) {
      await createApiKey(deps.identity, { accountId: DEMO_ACCOUNT_ID, userId: DEMO_OWNER_ID, name: 'bootstrap', value: deps.bootstrapKey });
      return { created: false, apiKey: deps.bootstrapKey };
    }
    return { created: false };
  }
  const now = deps.now ?? Date.now();
  await createAccount(deps.identity, {
    id: DEMO_ACCOUNT_ID,
    name: 'Demo Signage Co',
    businessName: 'Demo Signage Company B.V.',
    address1: 'Keizersgracht 1',
    address2: null,
    city: 'Amsterdam',
    state: 'NH',
    postalCode: '1015 CJ',
    country: 'NL',
    phone: '+31 20 000 0000',
    fax: null,
    primaryContactId: DEMO_OWNER_ID,
    secondaryContactId: null,
    timezone: 'Europe/Amsterdam',
  });
  await deps.identity.users.insert(DEMO_ACCOUNT_ID, {
    id: DEMO_OWNER_ID,
    username: 'owner@demo.example',
    usernameKey: 'owner@demo.example',
    firstName: 'Olivia',
    lastName: 'Owner',
    email: 'owner@demo.example',
    roles: ['Owner', 'API'],
    lastActivity: null,
  });
  const password = deps.password ?? randomBytes(12).toString('base64url');
  await setPassword(deps.identity, DEMO_ACCOUNT_ID, DEMO_OWNER_ID, password);
  await createUser(deps.identity, {
    accountId: DEMO_ACCOUNT_ID,
    username: 'viewer@demo.example',
    firstName: 'Victor',
    lastName: 'Viewer',
    email: 'viewer@demo.example',
    roles: ['Viewer', 'API'],
  });
  const key = await createApiKey(deps.identity, {
    accountId: DEMO_ACCOUNT_ID,
    userId: DEMO_OWNER_ID,
    name: 'bootstrap',
    ...(deps.bootstrapKey ? { value: deps.bootstrapKey } : {}),
  });

  const stores = await deps.devices.groupTree.addGroup(DEMO_ACCOUNT_ID, { name: 'Stores', parentId: null });
  const groups = [
    stores,
    await deps.devices.groupTree.addGroup(DEMO_ACCOUNT_ID, { name: 'Stores / Europe', parentId: stores.id }),
    await deps.devices.groupTree.addGroup(DEMO_ACCOUNT_ID, { name: 'Stores / Americas', parentId: stores.id }),
    await deps.devices.groupTree.addGroup(DEMO_ACCOUNT_ID, { name: 'Lobby screens', parentId: null }),
  ];
  const types = [
    { id: 'dt-android', name: 'Android Player', manufacturer: 'Generic' },
    { id: 'dt-brightsign', name: 'BrightSign XT', manufacturer: 'BrightSign' },
  ];
  for (let i = 0; i < 8; i++) {
    const group = groups[(i % 3) + 1]!;
    const loc = CITIES[i % CITIES.length]!;
    // Six devices pinged a minute ago (online); two went quiet an hour ago (offline).
    const pingedAt = new Date(now - (i < 6 ? 60_000 : 3_600_000)).toISOString();
    await deps.devices.addDevice(DEMO_ACCOUNT_ID, {
      name: `${group.name.split(' / ').pop()} screen ${i + 1}`,
      tags: i % 2 ? ['portrait', 'lobby'] : ['landscape'],
      deviceType: types[i % 2]!,
      location: { city: loc.city, state: loc.state, country: loc.country, latitude: loc.latitude, longitude: loc.longitude },
      pingData: {
        cpuUsage: 10 + i * 7,
        memoryUsage: 30 + i * 5,
        diskUsage: 40 + i,
        playerVersion: '4.2.0',
        ipAddress: `10.0.0.${10 + i}`,
        timestamp: pingedAt,
      },
      groupId: group.id,
      groupName: group.name,
      orgId: null,
      // `sim-` keys are the screens the built-in simulator plays (simulator.ts); `sim-hot-` runs hot.
      registrationKey: `${i < 6 ? (i === 5 ? 'sim-hot' : 'sim') : DEMO_SCREEN_KEY_PREFIX}-${randomBytes(16).toString('hex')}`,
    });
  }
  return { created: true, apiKey: key.value, password };
}

/** The demo account's owner, as the demo's writes act. */
const demoOwner = (): Principal => ({
  accountId: DEMO_ACCOUNT_ID,
  userId: DEMO_OWNER_ID,
  userName: 'owner@demo.example',
  roles: ['Owner', 'API'],
  policies: [...POLICIES],
  isOwner: true,
  via: 'internal',
});

/**
 * Demo alert rules (devices issue): high CPU (the simulator's hot screen trips it) and offline for
 * 30 minutes (the two quiet screens). Applied to the fleet at once, so alerts show from the start.
 */
export async function seedDemoAlertRules(runtime: DevicesRuntime): Promise<void> {
  const owner = demoOwner();
  if ((await runtime.alerts.listRules(DEMO_ACCOUNT_ID)).length) return;
  await createAlertRule(runtime, owner, { name: 'High CPU', conditions: [{ type: 'cpu_above', threshold: 90 }] });
  await createAlertRule(runtime, owner, { name: 'Offline for 30 minutes', conditions: [{ type: 'offline', minutes: 30 }] });
}

/** Demo content (content issue): generated images and a short video, two playlists, a template using them. */
export async function seedDemoMedia(runtime: ContentRuntime): Promise<{ lobbyPlaylistId: string; sidePlaylistId: string; templateId: string } | null> {
  return seedDemoContent(runtime, demoOwner());
}

/**
 * Demo schedules (scheduling issue), so nowPlaying and the player manifest answer something: the
 * lobby playlist on every screen all day (Normal), and the template on the landscape screens on
 * weekdays 08:00-18:00 (High, so it wins then); times are read in each screen's zone.
 */
/** The seeded demo screens' registration keys start with `sim-` (simulated) or this. */
const DEMO_SCREEN_KEY_PREFIX = 'demo';
/** One of the eight screens seedDemo creates (not one a user registered or paired in the demo account). */
export const isDemoScreen = (d: { registrationKey: string }): boolean =>
  d.registrationKey.startsWith('sim-') || d.registrationKey.startsWith(`${DEMO_SCREEN_KEY_PREFIX}-`);

export async function seedDemoSchedules(
  scheduling: SchedulingRuntime,
  devices: DeviceRepository,
  content: { lobbyPlaylistId: string; templateId: string },
): Promise<void> {
  // Only the seeded screens: the schedules are written in the background after start, and a screen a
  // user registered or paired in those first seconds must not start playing the demo's lobby loop.
  const fleet = (await devices.all(DEMO_ACCOUNT_ID, { byName: true })).filter(isDemoScreen);
  const owner = demoOwner();
  await createSchedule(scheduling, owner, {
    name: 'Lobby loop, all day',
    type: 'PLAYLIST',
    playlistId: content.lobbyPlaylistId,
    priority: 3,
    deviceIds: fleet.map((d) => d.id),
    tags: ['demo'],
  });
  const weekdays = { monday: true, tuesday: true, wednesday: true, thursday: true, friday: true, saturday: false, sunday: false };
  await createSchedule(scheduling, owner, {
    name: 'Main and side, business hours',
    type: 'TEMPLATE',
    templateId: content.templateId,
    priority: 4,
    startTime: '08:00',
    endTime: '18:00',
    ...weekdays,
    deviceIds: fleet.filter((d) => (d.tags ?? []).includes('landscape')).map((d) => d.id),
    tags: ['demo'],
  });
}
