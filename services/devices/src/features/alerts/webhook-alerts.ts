/**
 * Alerts from other services' events: this consumer group of the devices service, which owns
 * alerts, reads the push-event stream and opens one alert per event of the kinds below, announced
 * as alert.opened. Each alert has a latch key (an alert per key), so a redelivered message opens
 * nothing twice. The alerts name no device; a user resolves them like any other alert.
 * - webhook_endpoint.disabled (the delivery worker, identity): "Webhook endpoint disabled", one per
 *   event (the event id is the latch; re-enabling the endpoint is a separate action).
 * - content.running_empty (the content expiry sweep): "Content runs empty", one per playlist or
 *   file and instant (extending the content makes a new instant, announced anew if it comes close).
 * The group keeps its first name (webhook-alerts): a new name would start a new consumer group.
 */
import { PUSH_EVENTS_TOPIC, type EventStream, type Logger, type PushEvent, type PushEventType, type PushEvents, type Subscription } from '@pylon/kit';
import type { AlertRepository } from './alert.repository.js';
import { alertPayload } from './evaluate-alerts.js';

export const WEBHOOK_ALERTS_GROUP = 'webhook-alerts';
export const WEBHOOK_DISABLED_RULE = { id: 'system:webhook_endpoint_disabled', name: 'Webhook endpoint disabled' } as const;
export const CONTENT_RUNS_EMPTY_RULE = { id: 'system:content_runs_empty', name: 'Content runs empty' } as const;

/** How one event type becomes an alert: its rule, its latch key and its reason; null: the event is malformed. */
type SystemAlertOf<T extends PushEventType> = (e: PushEvent<T>) => { rule: { id: string; name: string }; key: string; reason: string } | null;

const SYSTEM_ALERTS: { [T in PushEventType]?: SystemAlertOf<T> } = {
  'webhook_endpoint.disabled': (e) =>
    e.data?.webhook_endpoint_id
      ? { rule: WEBHOOK_DISABLED_RULE, key: e.id, reason: `webhook endpoint ${e.data.webhook_endpoint_id} was disabled: ${e.data.reason}` }
      : null,
  'content.running_empty': (e) => {
    const d = e.data;
    const target = d?.playlist_id ? `playlist '${d.name}' (${d.playlist_id})` : d?.media_id ? `media file '${d.name}' (${d.media_id})` : null;
    if (!target || typeof d.runs_empty_at !== 'string') return null;
    const why = d.playlist_id
      ? 'every source of it expires by then'
      : 'it expires then, and whatever plays it alone (a playlist of it only, an override showing it) shows nothing';
    return {
      rule: CONTENT_RUNS_EMPTY_RULE,
      key: `${d.playlist_id ?? ''}/${d.media_id ?? ''}/${d.runs_empty_at}`,
      reason: `${target} runs empty at ${d.runs_empty_at}: ${why}`,
    };
  },
};

export interface WebhookAlertsDeps {
  stream: EventStream;
  alerts: AlertRepository;
  pushEvents?: PushEvents | undefined;
  logger: Logger;
}

export function startWebhookAlerts(deps: WebhookAlertsDeps): Promise<Subscription> {
  return deps.stream.subscribe(PUSH_EVENTS_TOPIC, { group: WEBHOOK_ALERTS_GROUP, maxBatchSize: 500, maxWaitMs: 50 }, async (batch) => {
    for (const m of batch) {
      const e = m.value as PushEvent;
      const of = typeof e?.type === 'string' && Object.hasOwn(SYSTEM_ALERTS, e.type) ? (SYSTEM_ALERTS[e.type] as SystemAlertOf<PushEventType>) : undefined;
      const wanted = of && typeof e.account_id === 'string' ? of(e) : null;
      if (!wanted) continue;
      const alert = await deps.alerts.openSystemAlert(e.account_id, {
        ruleId: wanted.rule.id,
        ruleName: wanted.rule.name,
        key: wanted.key,
        reason: wanted.reason.slice(0, 500),
      });
      if (!alert) continue;
      deps.logger.warn({ accountId: e.account_id, alertId: alert.id, rule: wanted.rule.name }, 'alert opened from an event');
      deps.pushEvents?.emit(e.account_id, 'alert.opened', alertPayload(alert));
    }
  });
}
