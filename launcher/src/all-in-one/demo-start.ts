/**
 * The demo `npm start` brings (SIGNAGE_DEMO, on by default): the demo account seeded on an empty data
 * dir, its media and schedules generated in the background (the server answers at once), the ping
 * simulator (SIGNAGE_SIMULATOR), and once the server listens the fleet simulator sending play logs,
 * events and impressions through the real HTTP ingestion API, so a newcomer's dashboards are not empty.
 */
import type { Logger } from '@pylon/kit';
import type { AllInOneEnv } from '../all-in-one.config.js';
import { DEMO_ACCOUNT_ID, seedDemo, seedDemoAlertRules, seedDemoMedia, seedDemoSchedules } from '../demo/seed-demo.js';
import { startSimulator } from '../demo/ping-simulator.js';
import { startFleet, type Fleet } from '../fleet/fleet-simulator.js';
import type { InProcessSubgraphs } from './in-process-subgraphs.js';

export interface DemoStart {
  /** The bootstrap key, when this start created one. */
  apiKey?: string;
  /** The demo owner's sign-in password, when this start set one. */
  password?: string;
  /** Once the server listens: the demo screens' telemetry through its HTTP API. */
  listening(baseUrl: string): void;
  /** Stops the fleet simulator (first: it calls the servers). */
  closeFleet(): Promise<void>;
  /** Stops the ping simulator. */
  closeSimulator(): Promise<void>;
  /** Waits for the background seeding (before the stores close). */
  seeded(): Promise<void>;
}

/** How long after the server listens the demo screens start sending. */
const FLEET_DELAY_MS = 1000;

const NO_DEMO: DemoStart = {
  listening: () => undefined,
  closeFleet: async () => undefined,
  closeSimulator: async () => undefined,
  seeded: async () => undefined,
};

export async function startDemo(env: AllInOneEnv, sg: InProcessSubgraphs, logger: Logger): Promise<DemoStart> {
  if (!env.SIGNAGE_DEMO) return NO_DEMO;
  const demo = await seedDemo({
    identity: sg.identity.repo,
    devices: sg.devices.repo,
    bootstrapKey: env.SIGNAGE_BOOTSTRAP_API_KEY,
    password: env.SIGNAGE_DEMO_PASSWORD,
  });
  if (demo.created) await seedDemoAlertRules(sg.devices.runtime);
  // Demo media are generated, probed and stored (image encoding, several fsynced writes): in the
  // background once the server listens, so they neither delay the start nor hold the answers;
  // closing waits for them.
  let media: Promise<unknown> = Promise.resolve();
  const simulator = env.SIGNAGE_SIMULATOR
    ? startSimulator(sg.devices.runtime, { accountId: DEMO_ACCOUNT_ID, intervalSeconds: env.SIGNAGE_SIMULATOR_SECONDS, logger })
    : undefined;
  let fleet: Promise<Fleet | undefined> = Promise.resolve(undefined);
  // The fleet's delayed start: a stop within that second clears it, and the fleet does not start.
  let delay: { timer: NodeJS.Timeout; release: () => void } | undefined;
  let closing = false;
  return {
    ...(demo.apiKey ? { apiKey: demo.apiKey } : {}),
    ...(demo.password ? { password: demo.password } : {}),
    listening(baseUrl) {
      if (demo.created)
        media = seedDemoMedia(sg.content.runtime)
          .then((ids) => (ids ? seedDemoSchedules(sg.scheduling.runtime, sg.devices.repo, ids) : undefined))
          .catch((e: unknown) => logger.warn({ err: e }, 'demo content was not seeded'));
      if (!simulator) return;
      // History at first start, then live, once the demo schedules exist and a second after the
      // server listens: its first requests (a manifest per screen) do not compete with the start's
      // readiness probes.
      const waited = new Promise<void>((release) => {
        delay = { timer: setTimeout(release, FLEET_DELAY_MS), release };
      });
      fleet = Promise.all([media, waited]).then(async () => {
        if (closing) return undefined;
        const screens = (await sg.devices.repo.all(DEMO_ACCOUNT_ID)).filter((d) => d.registrationKey.startsWith('sim-'));
        const f = await startFleet({
          baseUrl,
          screens: screens.map((d) => ({ registrationKey: d.registrationKey })),
          days: demo.created ? env.SIGNAGE_SIMULATOR_HISTORY_DAYS : 0,
          live: true,
          pings: false,
          pingSeconds: env.SIGNAGE_SIMULATOR_SECONDS,
          logger,
        });
        void f.history.then((t) => logger.info({ sent: t.sent, acknowledged: t.acknowledged }, 'demo telemetry history sent'));
        return f;
      });
    },
    closeFleet: async () => {
      closing = true;
      if (delay) {
        clearTimeout(delay.timer);
        delay.release();
      }
      await (await fleet)?.close();
    },
    closeSimulator: async () => simulator?.close(),
    seeded: async () => void (await media),
  };
}
