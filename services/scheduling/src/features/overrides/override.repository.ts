/**
 * Overrides and their screens' acknowledgements, sealed like the schedules' repository: intent-named
 * methods, every one scoped to the tenant.
 */
import { findOrNotFound, type Collection, type DocumentStore, type Stored } from '@pylon/kit';
import { OVERRIDE_SCREENS, OVERRIDES } from '../../domain/collections.js';
import type { OverrideRecord, OverrideScreenRecord } from '../../domain/override.js';

export type Override = Stored<OverrideRecord>;
export type OverrideScreen = Stored<OverrideScreenRecord>;

const isConflict = (e: unknown) => ['VERSION_CONFLICT', 'DUPLICATE_KEY'].includes((e as { code?: string } | null)?.code ?? '');

export class OverrideRepository {
  private readonly overrides: Collection<OverrideRecord>;
  private readonly screens: Collection<OverrideScreenRecord>;

  constructor(store: DocumentStore) {
    this.overrides = store.collection<OverrideRecord>(OVERRIDES);
    this.screens = store.collection<OverrideScreenRecord>(OVERRIDE_SCREENS);
  }

  add(tenant: string, record: OverrideRecord): Promise<Override> {
    return this.overrides.insert(tenant, record);
  }

  /** One of the tenant's overrides, or NOT_FOUND (a foreign id reads like an unknown one). */
  get(tenant: string, id: string): Promise<Override> {
    return findOrNotFound(this.overrides, tenant, id, 'override');
  }

  /** The tenant's overrides, newest start first. */
  list(tenant: string, limit: number, openOnly: boolean): Promise<Override[]> {
    return this.overrides.find(tenant, openOnly ? { open: true } : {}, { sort: { startsAt: -1, id: 1 }, limit });
  }

  /** Overrides whose end was not announced yet (few: what a manifest reads), through the `open` index. */
  open(tenant: string): Promise<Override[]> {
    return this.overrides.find(tenant, { open: true }, {});
  }

  /**
   * Applies the change only if nobody changed the override since `seen` was read; false when another
   * writer (another replica, a cancel) came first, so each transition is announced once.
   */
  async transition(tenant: string, seen: Override, changes: Partial<OverrideRecord>): Promise<Override | null> {
    try {
      return await this.overrides.update(tenant, seen.id, { $set: changes }, { expectedVersion: seen.version });
    } catch (e) {
      if (isConflict(e)) return null;
      throw e;
    }
  }

  /** The screens' acknowledgements of an override, by device id. */
  async screensOf(tenant: string, overrideId: string): Promise<Map<string, OverrideScreen>> {
    return new Map((await this.screens.find(tenant, { overrideId }, {})).map((s) => [s.deviceId, s]));
  }

  /**
   * Records what the screen acknowledged (the first time of each kind counts); null when it was
   * already recorded, so a repeated acknowledgement is neither audited nor announced twice.
   */
  async acknowledge(tenant: string, overrideId: string, deviceId: string, kind: 'shown' | 'stopped', at: string): Promise<OverrideScreen | null> {
    const id = `${overrideId}:${deviceId}`;
    const field = kind === 'shown' ? 'shownAt' : 'stoppedAt';
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.screens.findById(tenant, id);
      try {
        if (!current)
          return await this.screens.insert(tenant, {
            id,
            overrideId,
            deviceId,
            shownAt: kind === 'shown' ? at : null,
            stoppedAt: kind === 'stopped' ? at : null,
          });
        if (current[field]) return null;
        return await this.screens.update(tenant, id, { $set: { [field]: at } }, { expectedVersion: current.version });
      } catch (e) {
        if (!isConflict(e)) throw e;
      }
    }
    return null;
  }
}
