/**
 * Reads what a CAP feed URL serves: one CAP 1.2 `<alert>`, or an Atom `<feed>` / RSS `<channel>`
 * whose entries carry an alert inline (Atom `<content>`) or link to one. Namespace prefixes
 * (`cap:alert`) are dropped. A document declaring a DTD or entities is refused: CAP needs neither,
 * and entity expansion is how XML bombs work.
 */
import { XMLParser } from 'fast-xml-parser';
import { AppError } from '@pylon/kit';
import type { CapAlert, CapArea, CapInfo } from '../../domain/cap.js';

/** Entries of one feed document read at most (the newest first, as feeds list them). */
export const MAX_FEED_ENTRIES = 100;

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  trimValues: true,
  // Elements that repeat in CAP, Atom and RSS are always arrays, even when one is present.
  isArray: (name) => ['info', 'area', 'polygon', 'circle', 'geocode', 'entry', 'item', 'link', 'alert'].includes(name),
});

type Node = Record<string, unknown>;
const asNode = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);
/** An element's text (a string, or `#text` beside attributes), trimmed and bounded. */
const text = (v: unknown, max = 2_000): string => {
  const t = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : typeof asNode(v)['#text'] === 'string' ? (asNode(v)['#text'] as string) : '';
  return t.trim().slice(0, max);
};
const instantOrNull = (v: unknown): string | null => {
  const t = text(v, 40);
  return t && !Number.isNaN(Date.parse(t)) ? new Date(Date.parse(t)).toISOString() : null;
};

/** "lat,lon lat,lon ..." -> pairs; null when any pair is not two numbers in range. */
function polygonOf(raw: string): [number, number][] | null {
  const pairs = raw
    .split(/\s+/)
    .filter(Boolean)
    .map((p) => p.split(',').map(Number));
  if (pairs.length < 4 || pairs.length > 2_000) return null;
  if (pairs.some((p) => p.length !== 2 || !Number.isFinite(p[0]) || !Number.isFinite(p[1]) || Math.abs(p[0]!) > 90 || Math.abs(p[1]!) > 180)) return null;
  return pairs as [number, number][];
}

/** "lat,lon radiusKm" -> circle; null when malformed. */
function circleOf(raw: string): CapArea['circles'][number] | null {
  const m = /^(-?[\d.]+),(-?[\d.]+)\s+([\d.]+)$/.exec(raw.trim());
  if (!m) return null;
  const [latitude, longitude, radiusKm] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180 && Number.isFinite(radiusKm) ? { latitude, longitude, radiusKm } : null;
}

function areaOf(v: unknown): CapArea {
  const a = asNode(v);
  return {
    areaDesc: text(a.areaDesc, 500),
    polygons: list(a.polygon)
      .map((p) => polygonOf(text(p, 100_000)))
      .filter((p): p is [number, number][] => p !== null),
    circles: list(a.circle)
      .map((c) => circleOf(text(c, 200)))
      .filter((c): c is CapArea['circles'][number] => c !== null),
    geocodes: list(a.geocode)
      .map((g) => ({ valueName: text(asNode(g).valueName, 100), value: text(asNode(g).value, 100) }))
      .filter((g) => g.valueName && g.value),
  };
}

function infoOf(v: unknown): CapInfo {
  const i = asNode(v);
  return {
    language: text(i.language, 35) || 'en-US',
    event: text(i.event, 200),
    severity: text(i.severity, 20),
    urgency: text(i.urgency, 20),
    certainty: text(i.certainty, 20),
    effective: instantOrNull(i.effective),
    onset: instantOrNull(i.onset),
    expires: instantOrNull(i.expires),
    headline: text(i.headline, 500),
    description: text(i.description),
    instruction: text(i.instruction),
    senderName: text(i.senderName, 200),
    areas: list(i.area).slice(0, 100).map(areaOf),
  };
}

function alertOf(v: unknown): CapAlert | null {
  const a = asNode(v);
  const identifier = text(a.identifier, 200);
  const sender = text(a.sender, 200);
  if (!identifier || !sender) return null;
  return {
    identifier,
    sender,
    sent: instantOrNull(a.sent) ?? '',
    status: text(a.status, 20),
    msgType: text(a.msgType, 20),
    references: text(a.references, 20_000)
      .split(/\s+/)
      .filter(Boolean)
      .map((r) => r.split(','))
      .filter((r) => r.length >= 2)
      .map(([s, id]) => ({ sender: s!, identifier: id! })),
    infos: list(a.info).slice(0, 20).map(infoOf),
  };
}

/** An entry's alert inline (Atom `<content>`), else the address it links to (Atom `href`, RSS text). */
function entryOf(v: unknown): { alert: CapAlert } | { link: string } | null {
  const e = asNode(v);
  const inline = list(asNode(e.content).alert)[0];
  const alert = inline ? alertOf(inline) : null;
  if (alert) return { alert };
  const links = list(e.link).map((l) => (typeof l === 'string' ? l : String(asNode(l)['@href'] ?? text(l))));
  const link = links.find((l) => /^https?:\/\//i.test(l.trim()));
  return link ? { link: link.trim() } : null;
}

export interface FeedDocument {
  alerts: CapAlert[];
  /** Addresses of alerts the feed links to (fetched under the same rules). */
  links: string[];
}

/** Parses a feed document; BAD_FEED (UNPROCESSABLE) naming what is wrong when it is none of the three. */
export function parseFeed(xml: string): FeedDocument {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new AppError('UNPROCESSABLE', 'the feed declares a DTD or entities, which CAP does not use', { field: 'url' });
  let doc: Node;
  try {
    doc = asNode(parser.parse(xml));
  } catch (e) {
    throw new AppError('UNPROCESSABLE', `the feed is not well-formed XML: ${(e as Error).message.slice(0, 200)}`, { field: 'url' });
  }
  const alert = list(doc.alert)[0];
  if (alert) {
    const a = alertOf(alert);
    if (!a) throw new AppError('UNPROCESSABLE', 'the CAP alert has no identifier or sender', { field: 'url' });
    return { alerts: [a], links: [] };
  }
  const entries = doc.feed ? list(asNode(doc.feed).entry) : doc.rss ? list(asNode(asNode(doc.rss).channel).item) : null;
  if (!entries) throw new AppError('UNPROCESSABLE', 'the document is neither a CAP alert nor an Atom or RSS feed', { field: 'url' });
  const out: FeedDocument = { alerts: [], links: [] };
  for (const entry of entries.slice(0, MAX_FEED_ENTRIES)) {
    const found = entryOf(entry);
    if (found && 'alert' in found) out.alerts.push(found.alert);
    else if (found) out.links.push(found.link);
  }
  return out;
}

/** One linked document: its alert (a feed's entry link must point at one alert). */
export function parseLinkedAlert(xml: string): CapAlert {
  const doc = parseFeed(xml);
  const [alert] = doc.alerts;
  if (!alert || doc.links.length) throw new AppError('UNPROCESSABLE', 'the linked document is not one CAP alert', { field: 'url' });
  return alert;
}
