import type { CollectionSpec } from '@pylon/kit';

export const DEVICES: CollectionSpec = {
  name: 'devices',
  uniqueIndexes: [{ name: 'registrationKey', fields: ['registrationKey'], scope: 'global' }],
};
export const DEVICE_GROUPS: CollectionSpec = { name: 'deviceGroups' };
export const DISPLAY_COMMANDS: CollectionSpec = {
  name: 'displayCommands',
  uniqueIndexes: [{ name: 'command', fields: ['command'] }],
};
/**
 * Commands sent to devices, queued until the device's next ping (see domain/command.ts). Every ping
 * (and every wake-up of a long-poll) reads its device's queue: `byDevice` serves that read and a
 * device's history by key, so a ping costs the same with 20 or 20,000 commands in the account.
 */
export const DEVICE_COMMANDS: CollectionSpec = {
  name: 'deviceCommands',
  indexes: [{ name: 'byDevice', fields: ['deviceId', 'status', 'queuedAt'] }],
};
export const ALERT_RULES: CollectionSpec = { name: 'alertRules' };
/**
 * Alerts. `openKey` (account, rule, device) is present only while an alert holds its rule+device
 * latch; the global unique index makes "one open alert per rule and device" hold even when two
 * replicas evaluate the same ping, and lets a ping find the latch with one point read.
 */
export const ALERTS: CollectionSpec = {
  name: 'alerts',
  uniqueIndexes: [{ name: 'openKey', fields: ['openKey'], scope: 'global' }],
};
/**
 * The accounts the periodic sweep visits (documents are tenant-scoped, so the sweep keeps its own
 * list): one document per account, id = account id, under the SYSTEM_TENANT.
 */
export const FLEET_ACCOUNTS: CollectionSpec = { name: 'fleetAccounts' };
export const SYSTEM_TENANT = 'pylon-system';
/**
 * The due-time set of device silence (device.offline, see use-cases/announce-offline.ts): one
 * document per device believed online, id = device id, under the SYSTEM_TENANT, with the instant
 * (epoch ms) at which it is offline unless it pinged since. The index on `dueAt` lets the sweep
 * read only the due ones.
 */
export const DEVICE_SILENCE: CollectionSpec = { name: 'deviceSilence', indexes: [{ name: 'dueAt', fields: ['dueAt'] }] };
/**
 * Pairing requests of screens opened at /play without a key (see domain/pairing.ts). They belong
 * to no account until claimed, so they live under the SYSTEM_TENANT; id = the code (one pending
 * request per code), the screen finds its own by the hash of its secret.
 */
export const DEVICE_PAIRINGS: CollectionSpec = {
  name: 'devicePairings',
  uniqueIndexes: [{ name: 'secretHash', fields: ['secretHash'], scope: 'global' }],
};
