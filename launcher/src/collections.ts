/**
 * Every document collection the services declare, for the migrations job: opening each one with
 * the store in migrate mode builds its indexes and removes those no version declares any more.
 */
import type { CollectionSpec } from '@pylon/kit';
import * as content from '@pylon/content/domain/collections';
import * as datatables from '@pylon/datatables/domain/collections';
import * as devices from '@pylon/devices/domain/collections';
import * as identity from '@pylon/identity/domain/records';
import { OIDC } from '@pylon/identity/adapters/oidc.adapter';
import * as scheduling from '@pylon/scheduling/domain/collections';

const isSpec = (v: unknown): v is CollectionSpec =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { name?: unknown }).name === 'string' &&
  Object.keys(v).every((k) => ['name', 'uniqueIndexes', 'indexes'].includes(k));

export const ALL_COLLECTIONS: CollectionSpec[] = [content, datatables, devices, identity, scheduling]
  .flatMap((m) => Object.values(m).filter(isSpec))
  .concat([OIDC]);
