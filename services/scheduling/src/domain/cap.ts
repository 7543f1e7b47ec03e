/**
 * CAP 1.2 alert feeds (Common Alerting Protocol, the XML public warning systems publish) that start
 * and end emergency overrides. An account configures a feed: its URL, the severities (and
 * optionally the events) that take screens over, and which of its screens may be taken.
 *
 *   Alert ──> an override on the feed's screens inside the alert's areas, until the alert expires
 *   Update ─> the overrides of the alerts it references end, and it starts its own
 *   Cancel ─> the overrides of the alerts it references end (on every reachable screen)
 *
 * Invariants:
 * - An alert (sender + identifier) is acted on once per feed, whichever replica polls, however many
 *   times the feed repeats it: its record's id is derived from them and inserted first.
 * - Only `status` Actual alerts act; Exercise, Test, System and Draft are recorded and ignored.
 * - A screen is in an alert's area when its location lies inside one of the area's polygons or
 *   circles, or when it carries a tag `<valueName>:<value>` of one of the area's geocodes (e.g.
 *   `SAME:006037`): screens without a location are reached through tags.
 * - An alert without `expires` ends after the feed's default duration: an override never runs
 *   unbounded on a feed's word.
 */
import { distanceKm, type FleetDevice, type OverrideTarget } from './override.js';

export const CAP_SEVERITIES = ['Extreme', 'Severe', 'Moderate', 'Minor', 'Unknown'] as const;
export type CapSeverity = (typeof CAP_SEVERITIES)[number];

export type CapMsgType = 'Alert' | 'Update' | 'Cancel' | 'Ack' | 'Error';

export interface CapArea {
  areaDesc: string;
  /** Each polygon as [latitude, longitude] pairs (first = last in CAP). */
  polygons: [number, number][][];
  circles: { latitude: number; longitude: number; radiusKm: number }[];
  geocodes: { valueName: string; value: string }[];
}

export interface CapInfo {
  language: string;
  event: string;
  severity: string;
  urgency: string;
  certainty: string;
  effective: string | null;
  onset: string | null;
  expires: string | null;
  headline: string;
  description: string;
  instruction: string;
  senderName: string;
  areas: CapArea[];
}

export interface CapAlert {
  identifier: string;
  sender: string;
  sent: string;
  status: string;
  msgType: string;
  /** `sender,identifier,sent` triples of the alerts an Update or Cancel refers to. */
  references: { sender: string; identifier: string }[];
  infos: CapInfo[];
}

/** What happened to one alert of a feed (stored with it, shown to the operator). */
export type CapOutcome = 'PENDING' | 'STARTED' | 'NO_SCREENS' | 'FILTERED' | 'EXPIRED' | 'NOT_ACTUAL' | 'CANCELLED' | 'FAILED';

export interface CapFeedRecord {
  name: string;
  url: string;
  enabled: boolean;
  /** Severities that take screens over (CAP_SEVERITIES). */
  severities: string[];
  /** Event names that take screens over (case-insensitive); empty: every event. */
  events: string[];
  /** The screens the feed may take (intersected with each alert's area); null: every screen of the account. */
  target: OverrideTarget | null;
  pollSeconds: number;
  /** How long an alert without `expires` holds its screens. */
  defaultDurationMinutes: number;
  /** Who configured it: the feed acts with this user's policies (as a job does). */
  actor: { userId: string; userName: string; roles: string[]; policies: string[]; isOwner: boolean };
  lastPolledAt: string | null;
  lastError: string | null;
  /** When the feed is due (the poller's lease: set before the poll, by one replica). */
  nextPollAt: string;
}

export interface CapAlertRecord {
  feedId: string;
  sender: string;
  identifier: string;
  sent: string;
  msgType: string;
  event: string;
  severity: string;
  headline: string;
  outcome: CapOutcome;
  /** Why it was not acted on, or what failed. */
  detail: string | null;
  /** The override it started (STARTED); null otherwise. */
  overrideId: string | null;
  receivedAt: string;
}

/** The colours a feed's message shows in, by severity (white text). */
export const SEVERITY_COLOURS: Record<string, string> = {
  Extreme: '#b00020',
  Severe: '#c43e00',
  Moderate: '#8a5a00',
  Minor: '#1c4f9c',
  Unknown: '#444444',
};

/** Whether (lat, lng) lies inside the polygon (ray casting over [lat, lng] vertices). */
export function insidePolygon(lat: number, lng: number, polygon: readonly [number, number][]): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [yi, xi] = polygon[i]!;
    const [yj, xj] = polygon[j]!;
    if (yi > lat !== yj > lat && lng < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Whether a screen is in one of the areas: its location inside a polygon or circle, or a geocode tag. */
export function inAreas(d: FleetDevice, areas: readonly CapArea[]): boolean {
  const tags = new Set(d.tags.map((t) => t.toLowerCase()));
  return areas.some(
    (a) =>
      a.geocodes.some((g) => tags.has(`${g.valueName}:${g.value}`.toLowerCase())) ||
      (d.latitude !== null &&
        d.longitude !== null &&
        (a.polygons.some((p) => insidePolygon(d.latitude!, d.longitude!, p)) ||
          a.circles.some((c) => distanceKm(c.latitude, c.longitude, d.latitude!, d.longitude!) <= c.radiusKm))),
  );
}

/** The first info of an alert the feed acts on (severity and event), or null with the reason. */
export function matchingInfo(alert: CapAlert, feed: Pick<CapFeedRecord, 'severities' | 'events'>): { info: CapInfo } | { reason: string } {
  const events = new Set(feed.events.map((e) => e.toLowerCase()));
  const info = alert.infos.find((i) => feed.severities.includes(i.severity) && (!events.size || events.has(i.event.toLowerCase())));
  if (info) return { info };
  const seen = alert.infos.map((i) => `${i.event || 'no event'} (${i.severity || 'no severity'})`).join(', ');
  return { reason: `no info matches the feed's severities${events.size ? ' and events' : ''}: ${seen || 'the alert has no info'}` };
}

/** The full-screen message of an alert: headline (or event), then the instruction or description. */
export function messageOf(info: CapInfo, maxChars: number): string {
  const head = info.headline || info.event || 'Emergency alert';
  const body = info.instruction || info.description;
  const text = body ? `${head}\n\n${body}` : head;
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}
