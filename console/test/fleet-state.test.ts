/** The console's one rule for a screen's state: the Overview's tiles and the map's legend count alike. */
import { countStates, fleetTiles, screenState } from '../src/lib/fleet-state.js';

test('an offline screen with an open alert is offline; an online one with an alert is alerting', () => {
  expect(screenState(false, true)).toBe('offline');
  expect(screenState(false, false)).toBe('offline');
  expect(screenState(true, true)).toBe('alerting');
  expect(screenState(true, false)).toBe('online');
});

test("the demo's fleet: the legend and the tiles read the same counts, adding up to the screens", () => {
  // Eight screens: two quiet ones (offline, each with the "Offline for 30 minutes" alert), one hot
  // one (online, "High CPU" alert), five online without an alert.
  const screens = Array.from({ length: 8 }, (_, i) => ({ id: `s${i + 1}`, isOnline: i < 6 }));
  const alerted = [
    { id: 's6', isOnline: true },
    { id: 's7', isOnline: false },
    { id: 's8', isOnline: false },
  ];
  const legend = countStates(screens, new Set(alerted.map((s) => s.id)));
  expect(legend).toEqual({ online: 5, offline: 2, alerting: 1 });
  const online = screens.filter((s) => s.isOnline).length;
  // A screen named by two open alerts counts once.
  expect(fleetTiles(screens.length, online, [...alerted, { id: 's6', isOnline: true }])).toEqual(legend);
});
