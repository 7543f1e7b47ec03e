import { type Collection, type DocumentStore, type Stored } from '@pylon/kit';
import { ALERT_RULES, ALERTS, FLEET_ACCOUNTS, SYSTEM_TENANT } from './domain/collections.js';
import { openKeyOf, type AlertRecord, type AlertRuleRecord } from './domain/alert.js';

export type AlertRule = Stored<AlertRuleRecord>;
export type Alert = Stored<AlertRecord>;

/** An account the periodic sweep visits, and why. */
export interface FleetAccountRecord {
  /** The account has enabled alert rules (silence opens offline alerts; stale figures close threshold ones). */
  alertRules: boolean;
  /** The account has sent commands (their expiry and pruning need the sweep). */
  commands: boolean;
}

/** How long a process reuses an account's enabled rules on the ping path before reading them again. */
const RULES_TTL_MS = 2_000;

/** Alert rules, alerts and the sweep's account list, over the documents port. */
export class AlertRepository {
  readonly rules: Collection<AlertRuleRecord>;
  readonly alerts: Collection<AlertRecord>;
  readonly accounts: Collection<FleetAccountRecord>;
  private readonly ruleCache = new Map<string, { at: number; rules: Promise<AlertRule[]> }>();
  private readonly knownCommandAccounts = new Set<string>();

  constructor(store: DocumentStore) {
    this.rules = store.collection<AlertRuleRecord>(ALERT_RULES);
    this.alerts = store.collection<AlertRecord>(ALERTS);
    this.accounts = store.collection<FleetAccountRecord>(FLEET_ACCOUNTS);
  }

  listRules(tenant: string): Promise<AlertRule[]> {
    return this.rules.find(tenant, {}, { sort: { name: 1, id: 1 } });
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
      await this.accounts.insert(SYSTEM_TENANT, { id: tenant, alertRules: false, commands: false, ...change }).catch(async (e: unknown) => {
        // A concurrent first registration won: apply the change on top of it.
        if ((e as { code?: string })?.code !== 'DUPLICATE_KEY') throw e;
        await this.accounts.update(SYSTEM_TENANT, tenant, { $set: change });
      });
    } else if (Object.entries(change).some(([k, v]) => existing[k as keyof FleetAccountRecord] !== v)) {
      await this.accounts.update(SYSTEM_TENANT, tenant, { $set: change });
    }
    if (change.commands) this.knownCommandAccounts.add(tenant);
  }

  listAccounts(): Promise<Stored<FleetAccountRecord>[]> {
    return this.accounts.find(SYSTEM_TENANT, { $or: [{ alertRules: true }, { commands: true }] }, {});
  }
}
