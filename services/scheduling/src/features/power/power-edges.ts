/**
 * The display edges: at each instant a screen's display goes on or off by its power schedule, the
 * screen gets display_on / display_off through the devices subgraph's command queue (delivered on
 * its next ping, with delivery tracking). The next edge of every screen with a schedule is stored
 * (power-schedule.repository.ts), so the edges survive a restart: a tick reads the due entries
 * (an index walk that stops past now), computes the state NOW (a process that was down across
 * several edges sends the current state once, not the missed ones), moves the entry to the next
 * edge and, if it won that move (expected version: one replica per edge), sends the command.
 */
import { CHANNELS, isDevicesChangedEvent } from '@pylon/kit';
import type { SchedulingRuntime } from '../../runtime.js';
import { devicePower, powerPrincipal, replanDevices } from './manage-power.js';

/** How often due edges are looked for: a screen switches within this of its edge (the web player at the edge, by its manifest). */
export const POWER_EDGE_TICK_MS = 15_000;
/** Edges handled per tick at most (the rest are due on the next one). */
export const EDGE_BATCH = 500;

export interface EdgeReport {
  on: number;
  off: number;
}

export async function sendDueEdges(rt: SchedulingRuntime): Promise<EdgeReport> {
  const report: EdgeReport = { on: 0, off: 0 };
  const now = rt.now();
  for (const edge of await rt.power.due(now, EDGE_BATCH)) {
    const state = await devicePower(rt, powerPrincipal(edge.account), edge.id, now).catch((e: unknown) => {
      if ((e as { code?: string }).code === 'NOT_FOUND') return null; // the device is gone
      throw e;
    });
    const next = state?.schedule ? state.until : null;
    if (!(await rt.power.claim(edge, next))) continue;
    if (!state?.schedule) continue;
    await rt.devices.display?.(edge.account, [edge.id], state.on ? 'display_on' : 'display_off');
    report[state.on ? 'on' : 'off']++;
  }
  if (report.on || report.off) rt.logger?.info(report, 'power edges sent');
  return report;
}

/**
 * Ticks every `periodMs` in this process (unref'd), and re-plans the edges of devices that changed
 * (moved to another group, tagged: another schedule may govern them); returns the stop function.
 */
export function startPowerEdges(rt: SchedulingRuntime, periodMs = POWER_EDGE_TICK_MS): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const warn = (e: unknown) => rt.logger?.warn({ err: e }, 'power edges not re-planned; the next schedule change re-plans them');
  const subscribed = rt.pubsub
    ?.subscribe(CHANNELS.devicesChanged, (m) => {
      if (isDevicesChangedEvent(m)) replanDevices(rt, m.accountId, m.deviceIds).catch(warn);
    })
    .catch((e: unknown) => {
      warn(e);
      return undefined;
    });
  const timer = setInterval(() => {
    running = running.then(() => sendDueEdges(rt)).catch((e: unknown) => rt.logger?.warn({ err: e }, 'power edges not sent; the next tick sends them'));
  }, periodMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
    const off = await subscribed;
    await off?.().catch(warn);
  };
}
