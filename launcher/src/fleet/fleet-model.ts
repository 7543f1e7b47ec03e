/**
 * The simulated fleet's behaviour, pure (no I/O, the time range passed in): what one screen
 * records between two instants. Deterministic per (screen, instant), so simulating a period twice
 * produces the same record ids and the store keeps each record once.
 *
 * - Plays follow the screen's content loop (its manifest's playlist: files, intervals, the
 *   schedule) back to back during opening hours (08:00-20:00 in the screen's UTC offset).
 * - Impressions arrive as a Poisson process whose rate follows a daily curve: quiet mornings,
 *   a lunch peak around 12:30, an evening peak around 18:00, nothing while closed; weekends busier.
 * - Events: a touch session for about one visitor in eight (start, a few taps, end).
 */
export interface LoopItem {
  file_id: string;
  /** Seconds on screen. */
  duration: number;
  type: string;
  playlist_id?: string | null;
  schedule_id?: string | null;
}

export interface Screen {
  key: string;
  /** Stable small number: varies the curves between screens. */
  index: number;
  loop: LoopItem[];
  /** Hours east of UTC of the screen's local time. */
  utcOffsetHours: number;
}

export interface PlayRecord extends LoopItem {
  id: string;
  timestamp: string;
}
export interface ImpressionRecord {
  id: string;
  timestamp: string;
  sensor: string;
  gender: string;
  age_range: string;
  dwell_time: number;
  visitor_id: string;
  file_id: string | null;
}
export interface EventRecord {
  id: string;
  timestamp: string;
  session_id: string;
  event_name: string;
  properties: Record<string, unknown>;
}

export interface Records {
  playlogs: PlayRecord[];
  impressions: ImpressionRecord[];
  events: EventRecord[];
}

const OPEN_HOUR = 8;
const CLOSE_HOUR = 20;
const SENSORS = ['face', 'face', 'motion', 'ble', 'wifi'];
const AGES = ['UNDER18', 'AGE18TO24', 'AGE25TO34', 'AGE25TO34', 'AGE35TO44', 'AGE35TO44', 'AGE45TO54', 'AGE55TO64', 'AGE65TO74', 'AGEOVER74'];

/** mulberry32: a small seeded generator, so a period simulates the same way every time. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const hash = (s: string) => {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
};

/** Visitors per hour at a local hour of day (fractional), for a screen. */
export function audienceRate(localHour: number, weekday: number, index: number): number {
  if (localHour < OPEN_HOUR || localHour >= CLOSE_HOUR) return 0;
  const peak = (centre: number, width: number, height: number) => height * Math.exp(-((localHour - centre) ** 2) / (2 * width ** 2));
  const base = 8 + (index % 4) * 3;
  const weekend = weekday === 0 || weekday === 6 ? 1.4 : 1;
  return (base + peak(12.5, 1.2, 60) + peak(18, 1.5, 45)) * weekend;
}

const localHourOf = (t: number, offset: number) => (((t / 3_600_000 + offset) % 24) + 24) % 24;

/** What `screen` records in [from, to) (ms since epoch). Plays are aligned on the loop from each day's opening. */
export function simulate(screen: Screen, from: number, to: number): Records {
  const out: Records = { playlogs: [], impressions: [], events: [] };
  const loopLength = screen.loop.reduce((s, i) => s + i.duration, 0);
  const dayMs = 86_400_000;
  const offsetMs = screen.utcOffsetHours * 3_600_000;
  for (let dayStart = Math.floor((from + offsetMs) / dayMs) * dayMs - offsetMs; dayStart < to; dayStart += dayMs) {
    const open = dayStart + OPEN_HOUR * 3_600_000;
    const close = dayStart + CLOSE_HOUR * 3_600_000;
    // Plays: the loop back to back from opening time.
    if (loopLength > 0) {
      let t = open;
      for (let n = 0; t < close; n++) {
        const item = screen.loop[n % screen.loop.length]!;
        if (t >= from && t < to) out.playlogs.push({ ...item, id: `sim-${hash(screen.key)}-p-${t}`, timestamp: new Date(t).toISOString() });
        t += item.duration * 1000;
      }
    }
    // Impressions and sessions: hour by hour, Poisson arrivals at the hour's rate.
    for (let h = OPEN_HOUR; h < CLOSE_HOUR; h++) {
      const hourStart = dayStart + h * 3_600_000;
      if (hourStart + 3_600_000 <= from || hourStart >= to) continue;
      const r = rng(hash(`${screen.key}:${hourStart}`));
      const weekday = new Date(hourStart + offsetMs).getUTCDay();
      let t = hourStart;
      for (let n = 0; ; n++) {
        const rate = audienceRate(localHourOf(t, screen.utcOffsetHours), weekday, screen.index) / 3_600_000;
        t += rate > 0 ? -Math.log(1 - r()) / rate : 3_600_000;
        if (t >= hourStart + 3_600_000) break;
        const visitor = `v${hash(`${screen.key}:${hourStart}:${n}`).toString(36)}`;
        const dwell = Math.round(Math.exp(1.2 + r() * 1.6) * 10) / 10;
        const playing = loopLength > 0 ? screen.loop[Math.floor(((t - open) / 1000 / loopLength) * screen.loop.length) % screen.loop.length] : undefined;
        const ts = Math.floor(t);
        if (ts < from || ts >= to) continue;
        out.impressions.push({
          id: `sim-${hash(screen.key)}-i-${ts}-${n}`,
          timestamp: new Date(ts).toISOString(),
          sensor: SENSORS[Math.floor(r() * SENSORS.length)]!,
          gender: r() < 0.48 ? 'MALE' : r() < 0.92 ? 'FEMALE' : 'UNKNOWN',
          age_range: AGES[Math.floor(r() * AGES.length)]!,
          dwell_time: dwell,
          visitor_id: visitor,
          file_id: playing?.file_id ?? null,
        });
        if (r() < 0.125) {
          const session = `s-${visitor}`;
          const taps = 1 + Math.floor(r() * 4);
          const names = ['session_start', ...Array.from({ length: taps }, () => (r() < 0.5 ? 'tap_offer' : 'tap_map')), 'session_end'];
          names.forEach((event_name, k) =>
            out.events.push({
              id: `sim-${hash(screen.key)}-e-${ts}-${n}-${k}`,
              timestamp: new Date(ts + k * 2000).toISOString(),
              session_id: session,
              event_name,
              properties: k === 0 ? { sensor: 'touch' } : {},
            }),
          );
        }
      }
    }
  }
  // Events stamped past `to` (a session's later taps) belong to the next period.
  out.events = out.events.filter((e) => Date.parse(e.timestamp) < to);
  return out;
}
