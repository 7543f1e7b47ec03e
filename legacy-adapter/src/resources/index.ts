/** Every legacy resource, in mount order. */
import { getAccount } from './account.resource.js';
import { listDevices } from './devices.resource.js';
import type { DefinedResource } from './resource.js';

export const RESOURCES: readonly DefinedResource[] = [getAccount, listDevices];
