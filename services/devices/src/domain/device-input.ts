/**
 * The writable part of a device: what create, update, replace and JSON Patch may set. Everything
 * else (id, account, version, timestamps, isOnline, pingData, registrationKey, snap, groupName)
 * is owned by the service and refused by name.
 */
import { z } from 'zod';
import { AppError } from '@pylon/kit';
import { isTimeZone, parseInput } from './validation.js';
import type { DeviceRecord, DeviceType, Location } from './device.js';

export interface DeviceWritable {
  name: string;
  tags: string[];
  groupId: string | null;
  orgId: string | null;
  deviceType: DeviceType | null;
  location: Location | null;
  timezone: string | null;
  notes: string | null;
}

export const WRITABLE_DEVICE_FIELDS: readonly (keyof DeviceWritable)[] = ['name', 'tags', 'groupId', 'orgId', 'deviceType', 'location', 'timezone', 'notes'];

/** Fields a client can see but never set (GraphQL and REST spellings, REST arriving camel-cased). */
export const READ_ONLY_DEVICE_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'accountId',
  'version',
  'createdAt',
  'createdOn',
  'updatedAt',
  'updatedOn',
  'isOnline',
  'pingData',
  'registrationKey',
  'snap',
  'groupName',
  'snapUpdatedAt',
  'commandsQueuedAt',
  'commandsCheckedAt',
]);

const text = (max: number) => z.string().trim().max(max);
const optionalText = (max: number) =>
  text(max)
    .nullable()
    .optional()
    .transform((v) => (v === undefined || v === '' ? null : v));
const optionalNumber = (min: number, max: number) =>
  z
    .number()
    .min(min)
    .max(max)
    .nullable()
    .optional()
    .transform((v) => v ?? null);
const id = z.string().trim().min(1).max(200);

export const tagsSchema = z
  .array(z.string().trim().min(1).max(100))
  .max(50)
  .transform((tags) => [...new Set(tags)]);

export const deviceTypeSchema = z
  .object({ id: optionalText(200), name: optionalText(200), manufacturer: optionalText(200) })
  .strict()
  .transform((t): DeviceType => ({ id: t.id, name: t.name, manufacturer: t.manufacturer }));

export const locationSchema = z
  .object({
    city: optionalText(200),
    state: optionalText(200),
    country: optionalText(200),
    latitude: optionalNumber(-90, 90),
    longitude: optionalNumber(-180, 180),
  })
  .strict();

const timezone = z
  .string()
  .trim()
  .max(100)
  .refine((v) => isTimeZone(v), { message: 'is not a time zone name (e.g. Europe/Amsterdam)' });

const fields = {
  name: text(200).min(1),
  tags: tagsSchema,
  groupId: id.nullable(),
  orgId: id.nullable(),
  deviceType: deviceTypeSchema.nullable(),
  location: locationSchema.nullable(),
  timezone: timezone.nullable(),
  notes: text(2000).nullable(),
};

/** A whole writable device (create, REST PUT, the result of a JSON Patch): name required, the rest defaulted. */
const fullSchema = z
  .object({
    name: fields.name,
    tags: fields.tags.optional().default([]),
    groupId: fields.groupId.optional().default(null),
    orgId: fields.orgId.optional().default(null),
    deviceType: fields.deviceType.optional().default(null),
    location: fields.location.optional().default(null),
    timezone: fields.timezone.optional().default(null),
    notes: fields.notes.optional().default(null),
  })
  .strict();

/** Some writable fields (GraphQL updateDevice): only those given change; null clears. */
const partialSchema = z
  .object({
    name: fields.name.optional(),
    tags: fields.tags
      .nullable()
      .optional()
      .transform((v) => (v === null ? [] : v)),
    groupId: fields.groupId.optional(),
    orgId: fields.orgId.optional(),
    deviceType: fields.deviceType.optional(),
    location: fields.location.optional(),
    timezone: fields.timezone.optional(),
    notes: fields.notes.optional(),
  })
  .strict();

function refuseReadOnly(value: unknown): void {
  if (!value || typeof value !== 'object') return;
  for (const key of Object.keys(value)) {
    if (READ_ONLY_DEVICE_FIELDS.has(key)) throw new AppError('BAD_USER_INPUT', `${key} is read-only`, { field: key });
  }
}

export function parseDeviceWritable(value: unknown): DeviceWritable {
  refuseReadOnly(value);
  return parseInput(fullSchema, value) as DeviceWritable;
}

export function parseDeviceChanges(value: unknown): Partial<DeviceWritable> {
  refuseReadOnly(value);
  if (value && typeof value === 'object' && 'name' in value && (value as { name: unknown }).name === null) {
    throw new AppError('BAD_USER_INPUT', 'name cannot be cleared', { field: 'name' });
  }
  const parsed = parseInput(partialSchema, value);
  return Object.fromEntries(Object.entries(parsed).filter(([, v]) => v !== undefined)) as Partial<DeviceWritable>;
}

/** The writable view of a stored device (what JSON Patch operates on). */
export function writableOf(d: DeviceRecord): DeviceWritable {
  return {
    name: d.name,
    tags: [...(d.tags ?? [])],
    groupId: d.groupId ?? null,
    orgId: d.orgId ?? null,
    deviceType: d.deviceType ? { ...d.deviceType } : null,
    location: d.location ? { ...d.location } : null,
    timezone: d.timezone ?? null,
    notes: d.notes ?? null,
  };
}
