/**
 * Announces that tables' rows changed (CHANNELS.dataTablesChanged), so screens showing them as
 * menu boards re-read their rows now (the devices service ends their long-polling pings) instead
 * of polling. Every write reaches here through FilteredCounts.write, the one path all row and
 * definition writes take. Announcements are coalesced per account over COALESCE_MS, so an import
 * of many chunks is one event, not one per chunk. A lost announcement (pub/sub down) costs
 * latency: the screens' pings answer at their timeout anyway and re-read then.
 */
import { announce, CHANNELS, type DataTablesChangedEvent, type Logger, type PubSub } from '@pylon/kit';

/** How long changes gather before one announcement goes out. */
export const COALESCE_MS = 50;

export class TableChanges {
  private readonly pending = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pubsub: PubSub,
    private readonly logger?: Logger,
  ) {}

  changed(accountId: string, tableId: string): void {
    const ids = this.pending.get(accountId) ?? new Set<string>();
    this.pending.set(accountId, ids);
    ids.add(tableId);
    this.timer ??= setTimeout(() => void this.flush(), COALESCE_MS);
    this.timer.unref?.();
  }

  /** Sends what gathered (also called on close). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending];
    this.pending.clear();
    for (const [accountId, ids] of batch) {
      const event: DataTablesChangedEvent = { accountId, tableIds: [...ids] };
      await announce(this.pubsub, CHANNELS.dataTablesChanged, event, (err) =>
        this.logger?.warn({ err }, 'data table change not announced; screens re-read at their next ping'),
      );
    }
  }
}
