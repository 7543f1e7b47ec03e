/**
 * Every REST operation, keyed by operationId. Adding an endpoint = a path in
 * schema/openapi/rest.yaml + schema/operations/rest/<operationId>.graphql + an entry here;
 * the facade refuses to start when the three disagree.
 */
import { getAccount } from './account.js';
import { getDevice, listDevices } from './devices.js';
import type { RestOperation } from './types.js';

export type { RestInput, RestOperation, RestSuccess } from './types.js';

export const REST_OPERATIONS: Readonly<Record<string, RestOperation>> = {
  getAccount,
  listDevices,
  getDevice,
};
