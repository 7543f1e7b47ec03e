/**
 * An alert when a webhook endpoint is disabled after persistent failure: the delivery worker
 * (identity) publishes webhook_endpoint.disabled on the push-event stream; this consumer group of
 * the devices service, which owns alerts, opens one alert per such event (the event id is the
 * alert's latch, so a redelivered message opens nothing twice) and announces it as alert.opened.
 * The alert names no device; its rule shows as "Webhook endpoint disabled". A user resolves it
 * like any other alert (re-enabling the endpoint is a separate action).
 */
import { PUSH_EVENTS_TOPIC, type EventStream, type Logger, type PushEvent, type PushEvents, type Subscription } from '@pylon/kit';
import type { AlertRepository } from './alert.repository.js';
import { alertPayload } from './evaluate-alerts.js';

export const WEBHOOK_ALERTS_GROUP = 'webhook-alerts';
export const WEBHOOK_DISABLED_RULE = { id: 'system:webhook_endpoint_disabled', name: 'Webhook endpoint disabled' } as const;

export interface WebhookAlertsDeps {
  stream: EventStream;
  alerts: AlertRepository;
  pushEvents?: PushEvents | undefined;
  logger: Logger;
}

export function startWebhookAlerts(deps: WebhookAlertsDeps): Promise<Subscription> {
  return deps.stream.subscribe(PUSH_EVENTS_TOPIC, { group: WEBHOOK_ALERTS_GROUP, maxBatchSize: 500, maxWaitMs: 50 }, async (batch) => {
    for (const m of batch) {
      const e = m.value as PushEvent<'webhook_endpoint.disabled'>;
      if (e?.type !== 'webhook_endpoint.disabled' || typeof e.account_id !== 'string' || !e.data?.webhook_endpoint_id) continue;
      const alert = await deps.alerts.openSystemAlert(e.account_id, {
        ruleId: WEBHOOK_DISABLED_RULE.id,
        ruleName: WEBHOOK_DISABLED_RULE.name,
        key: e.id,
        reason: `webhook endpoint ${e.data.webhook_endpoint_id} was disabled: ${e.data.reason}`.slice(0, 500),
      });
      if (!alert) continue;
      deps.logger.warn({ accountId: e.account_id, alertId: alert.id }, 'alert opened: a webhook endpoint was disabled');
      deps.pushEvents?.emit(e.account_id, 'alert.opened', alertPayload(alert));
    }
  });
}
