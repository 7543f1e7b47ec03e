/**
 * What the Device and AlertRule GraphQL types resolve from (codegen mappers). Kept apart from the
 * resolvers so the generated types and the resolvers that use them import no cycle.
 */
import type { AlertRule } from '../features/alerts/alert.repository.js';
import type { Device } from './device.repository.js';

/**
 * What Device fields resolve from: a stored device (whether this query asked for screenshots rides
 * along), or what an alert remembers of a device deleted since (id, name, account; the rest absent).
 */
export type DeviceSource = (Device | (Pick<Device, 'id' | 'name' | 'accountId'> & Partial<Device>)) & { includeSnap?: boolean };

/** What an alert shows for a rule deleted since it opened: the snapshot it took. */
export type RuleSnapshot = Omit<AlertRule, 'accountId' | 'version' | 'createdAt' | 'updatedAt'> & { createdAt?: string; updatedAt?: string };

/** What AlertRule fields resolve from: a stored rule, or the snapshot of a deleted one. */
export type AlertRuleSource = AlertRule | RuleSnapshot;
