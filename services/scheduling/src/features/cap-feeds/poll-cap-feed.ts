/**
 * Polling CAP feeds: read the document, act on each alert once (start an override over the feed's
 * screens in the alert's areas; an Update or a Cancel ends the overrides of the alerts it
 * references), and remember what was done. The poller visits the accounts with feeds every tick;
 * a due feed is taken by one replica (expected version on its next-poll instant).
 */
import { AppError, type Principal } from '@pylon/kit';
import { inAreas, matchingInfo, messageOf, SEVERITY_COLOURS, type CapAlert, type CapAlertRecord, type CapOutcome } from '../../domain/cap.js';
import { MAX_MESSAGE_CHARS, MAX_OVERRIDE_DEVICES, resolveTarget } from '../../domain/override.js';
import type { SchedulingRuntime } from '../../runtime.js';
import { cancelOverride, startOverride } from '../overrides/manage-overrides.js';
import type { CapAlertSeen, CapFeed } from './cap-feed.repository.js';
import { parseFeed, parseLinkedAlert } from './parse-cap.js';

/** Linked alert documents fetched per poll at most (the rest wait for the next poll). */
export const MAX_LINKS_PER_POLL = 20;
/** A sighting still PENDING this long after it was recorded was interrupted (a crash): acted on again. */
const STALE_PENDING_MS = 60_000;

export interface CapPollReport {
  alertsRead: number;
  /** Alerts acted on in this poll, with what was done. */
  handled: CapAlertSeen[];
  /** Why the feed could not be read; null when it was. */
  error: string | null;
}

/** The feed's creator as the principal it acts as (policies as granted then; an internal caller). */
const actorPrincipal = (tenant: string, f: CapFeed): Principal => ({
  accountId: tenant,
  ...f.actor,
  policies: f.actor.policies as Principal['policies'],
  via: 'internal',
});

const messageOfError = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 500);

/** Reads the feed now and acts on what is new; the feed's last poll and error are stored. */
export async function pollCapFeed(rt: SchedulingRuntime, tenant: string, feed: CapFeed): Promise<CapPollReport> {
  const report: CapPollReport = { alertsRead: 0, handled: [], error: null };
  const errors: string[] = [];
  try {
    const doc = parseFeed(await rt.fetchFeed(feed.url));
    const alerts = [...doc.alerts];
    for (const link of doc.links.slice(0, MAX_LINKS_PER_POLL)) {
      try {
        alerts.push(parseLinkedAlert(await rt.fetchFeed(link)));
      } catch (e) {
        errors.push(`${link.slice(0, 200)}: ${messageOfError(e)}`);
      }
    }
    report.alertsRead = alerts.length;
    // Oldest first, so an Update or Cancel read with the alert it refers to comes after it.
    alerts.sort((a, b) => a.sent.localeCompare(b.sent));
    for (const alert of alerts) {
      const done = await handleAlert(rt, tenant, feed, alert);
      if (done) report.handled.push(done);
    }
  } catch (e) {
    errors.unshift(messageOfError(e));
  }
  report.error = errors.length ? errors.join('; ').slice(0, 1_000) : null;
  await rt.capFeeds.change(tenant, feed.id, { lastPolledAt: new Date(rt.now()).toISOString(), lastError: report.error }).catch(() => undefined);
  if (report.error) rt.logger?.warn({ feedId: feed.id, account: tenant, error: report.error }, 'CAP feed poll had errors');
  return report;
}

/** Acts on one alert the first time the feed shows it; null when it was handled before. */
async function handleAlert(rt: SchedulingRuntime, tenant: string, feed: CapFeed, alert: CapAlert): Promise<CapAlertSeen | null> {
  const info = alert.infos[0];
  const base: CapAlertRecord = {
    feedId: feed.id,
    sender: alert.sender,
    identifier: alert.identifier,
    sent: alert.sent,
    msgType: alert.msgType,
    event: info?.event ?? '',
    severity: info?.severity ?? '',
    headline: info?.headline ?? '',
    outcome: 'PENDING',
    detail: null,
    overrideId: null,
    receivedAt: new Date(rt.now()).toISOString(),
  };
  let seen = await rt.capFeeds.firstSighting(tenant, base);
  if (!seen) {
    const earlier = await rt.capFeeds.findAlert(tenant, feed.id, alert.sender, alert.identifier);
    if (!earlier || earlier.outcome !== 'PENDING' || rt.now() - Date.parse(earlier.receivedAt) < STALE_PENDING_MS) return null;
    seen = earlier;
  }
  let result: Pick<CapAlertRecord, 'outcome' | 'detail' | 'overrideId'>;
  try {
    result = await act(rt, tenant, feed, alert);
  } catch (e) {
    result = { outcome: 'FAILED', detail: messageOfError(e), overrideId: null };
  }
  return rt.capFeeds.settle(tenant, seen.id, result);
}

async function act(rt: SchedulingRuntime, tenant: string, feed: CapFeed, alert: CapAlert): Promise<Pick<CapAlertRecord, 'outcome' | 'detail' | 'overrideId'>> {
  const none = (outcome: CapOutcome, detail: string) => ({ outcome, detail, overrideId: null });
  if (alert.status !== 'Actual') return none('NOT_ACTUAL', `status ${alert.status || 'missing'}: only Actual alerts take screens over`);
  const actor = actorPrincipal(tenant, feed);
  const ended = alert.msgType === 'Update' || alert.msgType === 'Cancel' ? await cancelReferenced(rt, tenant, feed, actor, alert) : 0;
  if (alert.msgType === 'Cancel') return none('CANCELLED', `ended ${ended} override${ended === 1 ? '' : 's'} of the referenced alerts`);
  if (alert.msgType !== 'Alert' && alert.msgType !== 'Update') return none('FILTERED', `msgType ${alert.msgType || 'missing'} is not acted on`);
  const match = matchingInfo(alert, feed);
  if ('reason' in match) return none('FILTERED', match.reason);
  const { info } = match;
  const now = rt.now();
  const sent = Date.parse(alert.sent) || now;
  const ends = info.expires ? Date.parse(info.expires) : Math.max(sent, now) + feed.defaultDurationMinutes * 60_000;
  if (ends <= now) return none('EXPIRED', `expired at ${new Date(ends).toISOString()}`);
  const fleet = await rt.devices.fleet(actor);
  const allowed = feed.target ? new Set(resolveTarget(feed.target, fleet.devices, fleet.groups)) : null;
  const screens = fleet.devices
    .filter((d) => (!allowed || allowed.has(d.id)) && (!info.areas.length || inAreas(d, info.areas)))
    .map((d) => d.id)
    .slice(0, MAX_OVERRIDE_DEVICES);
  if (!screens.length) return none('NO_SCREENS', `no screen of the feed is in ${info.areas.map((a) => a.areaDesc).join(', ') || 'the area'}`);
  const start = Date.parse(info.onset ?? info.effective ?? '');
  const view = await startOverride(
    rt,
    actor,
    {
      name: `${info.event || 'Alert'}: ${info.headline || info.areas.map((a) => a.areaDesc).join(', ')}`.slice(0, 200),
      content: {
        type: 'MESSAGE',
        text: messageOf(info, MAX_MESSAGE_CHARS),
        textColor: '#ffffff',
        backgroundColor: SEVERITY_COLOURS[info.severity] ?? '#b00020',
      },
      target: { deviceIds: screens },
      ...(start > now ? { startsAt: new Date(start).toISOString() } : {}),
      endsAt: new Date(ends).toISOString(),
    },
    `cap:${feed.name}`,
  );
  return { outcome: 'STARTED', detail: `${screens.length} screen${screens.length === 1 ? '' : 's'}`, overrideId: view.override.id };
}

/** Ends the overrides started for the alerts `alert` references (those already over are left); how many ended. */
async function cancelReferenced(rt: SchedulingRuntime, tenant: string, feed: CapFeed, actor: Principal, alert: CapAlert): Promise<number> {
  let ended = 0;
  for (const ref of alert.references.slice(0, 100)) {
    const earlier = await rt.capFeeds.findAlert(tenant, feed.id, ref.sender, ref.identifier);
    if (!earlier?.overrideId) continue;
    try {
      await cancelOverride(rt, actor, earlier.overrideId);
      ended++;
    } catch (e) {
      // Already ended or cancelled by an operator: nothing left to stop.
      if (!(e instanceof AppError && (e.code === 'UNPROCESSABLE' || e.code === 'NOT_FOUND'))) throw e;
    }
  }
  return ended;
}

/** One round of the poller: every due feed of every account with feeds, each taken by one replica. */
export async function pollDueFeeds(rt: SchedulingRuntime): Promise<number> {
  let polled = 0;
  const now = rt.now();
  for (const tenant of await rt.capFeeds.tenants()) {
    for (const feed of await rt.capFeeds.due(tenant, new Date(now).toISOString())) {
      const taken = await rt.capFeeds.lease(tenant, feed, new Date(now + feed.pollSeconds * 1000).toISOString());
      if (!taken) continue;
      await pollCapFeed(rt, tenant, taken);
      polled++;
    }
  }
  return polled;
}

/** Polls due feeds every `everyMs` in this process (rounds never overlap); returns the stop function. */
export function startCapPolling(rt: SchedulingRuntime, everyMs = 15_000): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    pollDueFeeds(rt)
      .catch((e: unknown) => rt.logger?.warn({ err: e }, 'CAP feed round failed; the next round retries'))
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
