/**
 * A screen's one state, the same everywhere the console counts or shows it (the Overview's tiles,
 * the map's dots and legend, the Screens list): offline first, else alerting (online with an open
 * alert), else online. Offline wins because an offline screen's alert is most often about that very
 * silence (the demo's "Offline for 30 minutes" rule): counted as alerting too, the tiles and the
 * legend would disagree about how many screens are offline. Each screen counts once, so the three
 * counts add up to the number of screens.
 */
export type ScreenState = 'online' | 'offline' | 'alerting';

export const SCREEN_STATES: readonly ScreenState[] = ['online', 'offline', 'alerting'];

export function screenState(isOnline: boolean, alerting: boolean): ScreenState {
  if (!isOnline) return 'offline';
  return alerting ? 'alerting' : 'online';
}

/** How many of `screens` are in each state; `alerting`: the ids of screens with an open alert. */
export function countStates(screens: readonly { id: string; isOnline: boolean }[], alerting: ReadonlySet<string>): Record<ScreenState, number> {
  const counts: Record<ScreenState, number> = { online: 0, offline: 0, alerting: 0 };
  for (const s of screens) counts[screenState(s.isOnline, alerting.has(s.id))]++;
  return counts;
}

/**
 * The Overview's tiles from the fleet's totals (`deviceCount`, all screens) and the screens named by
 * the open alerts (each with its online state): the same rule as countStates, without listing the fleet.
 */
export function fleetTiles(total: number, online: number, alertingScreens: readonly { id: string; isOnline: boolean }[]): Record<ScreenState, number> {
  const onlineAlerting = new Set(alertingScreens.filter((s) => s.isOnline).map((s) => s.id)).size;
  return { online: online - onlineAlerting, offline: total - online, alerting: onlineAlerting };
}
