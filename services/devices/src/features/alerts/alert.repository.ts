import {
  derivedBooleanField,
  insertUnlessPresent,
  listQuery,
  lowerCaseEnumField,
  orderToSort,
  STAMP_FIELDS,
  storedFields,
  whereToFilter,
  type Collection,
  type DocumentStore,
  type FieldMap,
  type Filter,
  type Stored,
} from '@pylon/kit';
import { ALERT_RULES, ALERTS, FLEET_ACCOUNTS, SYSTEM_TENANT } from '../../domain/collections.js';
import { openKeyOf, ruleSetOf, type AlertRecord, type AlertRuleRecord } from '../../domain/alert.js';
import type { DeviceRecord } from '../../domain/device.js';

export type AlertRule = Stored<AlertRuleRecord>;
export type Alert = Stored<AlertRecord>;

/** An account the periodic sweep visits, and why. */
export interface FleetAccountRecord {
  /** The account has enabled alert rules (silence opens offline alerts; stale figures close threshold ones). */
  alertRules: boolean;
  /** The account has sent commands (their expiry and pruning need the sweep). */
  commands: boolean;
}

/** Which alerts a listing wants (GraphQL alerts, REST GET /alerts); limit and offset already checked. */
export interface AlertSearch {
  activeOnly?: boolean | null;
  id?: string[] | null;
  deviceId?: string[] | null;
  resolved?: boolean | null;
  orgId?: string | null;
  limit?: number | null;
  offset?: number | null;
  /** GraphQL where / order over ALERT_FIELDS (checked here: unknown fields are BAD_USER_INPUT). */
  where?: unknown;
  order?: unknown;
}

/** What a snooze or resolution sets on an alert. */
export interface AlertStateChange {
  snoozedUntil?: string | null;
  resolvedOn?: string | null;
}

/** How long a process reuses an account's enabled rules on the ping path before reading them again. */
const RULES_TTL_MS = 2_000;

/**
 * Alert rules, alerts and the sweep's account list, over the documents port. The only module of
 * the subgraph that knows these collections and speaks Mongo-style filters to them.
 */
export class AlertRepository {
  private readonly rules: Collection<AlertRuleRecord>;
  private readonly alerts: Collection<AlertRecord>;
  private readonly accounts: Collection<FleetAccountRecord>;
  private readonly ruleCache = new Map<string, { at: number; rules: Promise<AlertRule[]> }>();
  private readonly knownCommandAccounts = new Set<string>();

  constructor(store: DocumentStore) {
    this.rules = store.collection<AlertRuleRecord>(ALERT_RULES);
    this.alerts = store.collection<AlertRecord>(ALERTS);
    this.accounts = store.collection<FleetAccountRecord>(FLEET_ACCOUNTS);
  }

  /** The account's rules filtered by `where`, sorted by `order` then by name (GraphQL alertRules). */
  async listRules(tenant: string, q: { where?: unknown; order?: unknown } = {}): Promise<AlertRule[]> {
    return this.rules.find(tenant, whereToFilter(q.where, ALERT_RULE_FIELDS), { sort: orderToSort(q.order, ALERT_RULE_FIELDS, { name: 1, id: 1 }) });
  }

  /**
   * The account's enabled rules, read at most every couple of seconds per process: every ping
   * evaluates them. A rule change made through this process is seen at once (invalidate);
   * one made through another replica within RULES_TTL_MS.
   */
  enabledRules(tenant: string, now = Date.now()): Promise<AlertRule[]> {
    const hit = this.ruleCache.get(tenant);
    if (hit && now - hit.at < RULES_TTL_MS) return hit.rules;
    const rules = this.rules.find(tenant, { isEnabled: true }, { sort: { name: 1, id: 1 } });
    if (this.ruleCache.size > 10_000) this.ruleCache.clear();
    this.ruleCache.set(tenant, { at: now, rules });
    rules.catch(() => this.ruleCache.delete(tenant));
    return rules;
  }

  invalidate(tenant: string): void {
    this.ruleCache.delete(tenant);
  }

  /** The account's enabled rules read now, bypassing the ping path's cache (the sweep). */
  enabledRulesNow(tenant: string): Promise<AlertRule[]> {
    return this.rules.find(tenant, { isEnabled: true }, {});
  }

  countEnabledRules(tenant: string): Promise<number> {
    return this.rules.count(tenant, { isEnabled: true });
  }

  findRule(tenant: string, id: string): Promise<AlertRule | null> {
    return this.rules.findById(tenant, id);
  }

  /** One read for many rule ids (a response's DataLoader). */
  findRulesByIds(tenant: string, ids: readonly string[]): Promise<AlertRule[]> {
    return ids.length ? this.rules.find(tenant, { id: { $in: [...ids] } }, {}) : Promise.resolve([]);
  }

  addRule(tenant: string, rule: AlertRuleRecord): Promise<AlertRule> {
    return this.rules.insert(tenant, rule);
  }

  /** Replaces a rule's definition; null when it is gone. */
  replaceRule(tenant: string, id: string, rule: AlertRuleRecord): Promise<AlertRule | null> {
    return this.rules.update(tenant, id, { $set: { ...rule } });
  }

  removeRule(tenant: string, id: string): Promise<boolean> {
    return this.rules.delete(tenant, id);
  }

  // ---- alerts ----

  /** The caller's alerts, newest first. Active = neither resolved nor snoozed (a snooze past `nowIso` no longer counts). */
  async search(tenant: string, q: AlertSearch, nowIso: string): Promise<Alert[]> {
    const { filter, options } = alertListing(q, nowIso);
    return this.alerts.find(tenant, filter, options);
  }

  /** How many alerts `search` would return with the same filters, without limit or offset (counted by the store). */
  count(tenant: string, q: AlertSearch, nowIso: string): Promise<number> {
    return this.alerts.count(tenant, alertListing({ ...q, limit: null, offset: null, order: null }, nowIso).filter);
  }

  findAlert(tenant: string, id: string): Promise<Alert | null> {
    return this.alerts.findById(tenant, id);
  }

  /** Snoozes or resolves an alert; null when it is gone. */
  changeState(tenant: string, id: string, change: AlertStateChange): Promise<Alert | null> {
    return this.alerts.update(tenant, id, { $set: { ...change } });
  }

  /**
   * Opens the alert of `rule` for `device`, taking the rule+device latch. False when another
   * evaluation (another replica) holds the latch already: the unique index lets only one open it.
   */
  /** Opens an alert for the rule+device latch; null when one already holds it. */
  async openFor(device: Pick<Stored<DeviceRecord>, 'id' | 'accountId' | 'name' | 'orgId'>, rule: AlertRule, reason: string): Promise<Alert | null> {
    const tenant = device.accountId;
    return this.insertOpen(tenant, {
      ruleId: rule.id,
      ruleName: rule.name,
      ruleSet: ruleSetOf(rule),
      deviceIds: [device.id],
      deviceNames: [device.name],
      orgId: device.orgId ?? null,
      openKey: openKeyOf(tenant, rule.id, device.id),
      reason,
    });
  }

  /**
   * Opens an alert about no device (a system condition, e.g. a webhook endpoint disabled): `ruleId`
   * names the kind (no stored rule has it: the alert shows `ruleName` as its rule), `key` the
   * occurrence, so the same occurrence reported twice opens one alert. Null when it is open already.
   */
  async openSystemAlert(tenant: string, o: { ruleId: string; ruleName: string; key: string; reason: string }): Promise<Alert | null> {
    return this.insertOpen(tenant, {
      ruleId: o.ruleId,
      ruleName: o.ruleName,
      ruleSet: ruleSetOf({ match: 'any', conditions: [] }),
      deviceIds: [],
      deviceNames: [],
      orgId: null,
      openKey: openKeyOf(tenant, o.ruleId, o.key),
      reason: o.reason,
    });
  }

  /** Inserts an alert open (not snoozed, not resolved); null when its openKey's latch is held already. */
  private insertOpen(tenant: string, alert: Omit<AlertRecord, 'snoozedUntil' | 'resolvedOn' | 'autoResolved'>): Promise<Alert | null> {
    return insertUnlessPresent(this.alerts, tenant, { ...alert, snoozedUntil: null, resolvedOn: null, autoResolved: false });
  }

  /** Releases an alert's latch; an alert nobody resolved yet is closed as auto-resolved at `nowIso`. */
  async release(tenant: string, alert: Alert, nowIso: string): Promise<void> {
    await this.alerts.update(tenant, alert.id, {
      $unset: ['openKey'],
      ...(alert.resolvedOn ? {} : { $set: { resolvedOn: nowIso, autoResolved: true } }),
    });
  }

  /** The alert holding the rule+device latch, if any (one point read). */
  findLatched(tenant: string, ruleId: string, deviceId: string): Promise<Alert | null> {
    return this.alerts.findByUnique('openKey', [openKeyOf(tenant, ruleId, deviceId)]);
  }

  /** Alerts still holding a latch, of one rule or one device (rule/device changes release them). */
  findLatchedBy(tenant: string, filter: { ruleId?: string; deviceId?: string }): Promise<Alert[]> {
    const clauses: Record<string, unknown>[] = [{ openKey: { $exists: true } }];
    if (filter.ruleId) clauses.push({ ruleId: filter.ruleId });
    if (filter.deviceId) clauses.push({ deviceIds: filter.deviceId });
    return this.alerts.find(tenant, { $and: clauses }, {});
  }

  /** Records why the sweep must visit an account (idempotent; cheap after the first call per process). */
  async registerAccount(tenant: string, change: Partial<FleetAccountRecord>): Promise<void> {
    if (change.commands && change.alertRules === undefined && this.knownCommandAccounts.has(tenant)) return;
    const existing = await this.accounts.findById(SYSTEM_TENANT, tenant);
    if (!existing) {
      const inserted = await insertUnlessPresent(this.accounts, SYSTEM_TENANT, { id: tenant, alertRules: false, commands: false, ...change });
      // null: a concurrent first registration won: apply the change on top of it.
      if (!inserted) await this.accounts.update(SYSTEM_TENANT, tenant, { $set: change });
    } else if (Object.entries(change).some(([k, v]) => existing[k as keyof FleetAccountRecord] !== v)) {
      await this.accounts.update(SYSTEM_TENANT, tenant, { $set: change });
    }
    if (change.commands) this.knownCommandAccounts.add(tenant);
  }

  listAccounts(): Promise<Stored<FleetAccountRecord>[]> {
    return this.accounts.find(SYSTEM_TENANT, { $or: [{ alertRules: true }, { commands: true }] }, {});
  }
}

/** Active = neither resolved nor snoozed (a snooze at or before now no longer counts); see isAlertActive. */
function activeClause(active: boolean, nowIso: string): Filter {
  return active
    ? { $and: [{ resolvedOn: null }, { $or: [{ snoozedUntil: null }, { snoozedUntil: { $lte: nowIso } }] }] }
    : { $or: [{ resolvedOn: { $ne: null } }, { snoozedUntil: { $gt: nowIso } }] };
}

/** How the GraphQL where/order fields of AlertRule map onto stored rule documents. */
export const ALERT_RULE_FIELDS: FieldMap = {
  ...storedFields('string', ['id', 'name']),
  isEnabled: { path: 'isEnabled', kind: 'boolean' },
  match: lowerCaseEnumField(['any', 'all'], (values) => ({ match: { $in: values } }), 'match'),
  ...STAMP_FIELDS,
};

/** The alert fields stored as they are (built once per process, not per listing). */
const STORED_ALERT_FIELDS: FieldMap = {
  ...storedFields('string', ['id', 'reason']),
  ...STAMP_FIELDS,
  ...storedFields('date', ['snoozedUntil', 'resolvedOn']),
};

/** How the GraphQL where/order fields of Alert map onto stored alert documents. */
export function alertFields(nowIso: string): FieldMap {
  return {
    ...STORED_ALERT_FIELDS,
    autoResolved: { path: 'autoResolved', kind: 'boolean' },
    isActive: derivedBooleanField((active) => activeClause(active, nowIso)),
    alertRule: {
      nested: {
        id: { path: 'ruleId', kind: 'string' },
        name: { path: 'ruleName', kind: 'string' },
      },
    },
  };
}

/** The store filter and options of an alert search (argument filters AND where, newest first by default). */
function alertListing(q: AlertSearch, nowIso: string): ReturnType<typeof listQuery> {
  const clauses: Filter[] = [];
  if (q.orgId) clauses.push({ orgId: q.orgId });
  if (q.resolved === true) clauses.push({ resolvedOn: { $ne: null } });
  if (q.resolved === false || q.activeOnly) clauses.push({ resolvedOn: null });
  if (q.activeOnly) clauses.push(activeClause(true, nowIso));
  return listQuery(q, alertFields(nowIso), {
    anyOf: { id: q.id, deviceIds: q.deviceId },
    clauses,
    fallbackSort: { createdAt: -1, id: -1 },
  });
}
