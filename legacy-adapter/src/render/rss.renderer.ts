/**
 * RSS 2.0 output, for the resources that declare an RSS view (playlists: one item per source).
 * A resource maps its data to an RssFeed; this file only writes the document.
 */
import { escapeXml, XML_DECLARATION } from './xml.renderer.js';

export interface RssItem {
  title: string;
  link?: string | null;
  description?: string | null;
  guid?: string | null;
  /** ISO 8601; written as an RFC 822 date as RSS 2.0 requires. */
  pubDate?: string | null;
  /** Media enclosure (url, MIME type, size in bytes). */
  enclosure?: { url: string; type: string; length: number } | null;
}

export interface RssFeed {
  title: string;
  link: string;
  description: string;
  items: RssItem[];
}

export const RSS_TYPE = 'application/rss+xml; charset=utf-8';

const el = (name: string, text: string | null | undefined) => (text === null || text === undefined ? '' : `<${name}>${escapeXml(text)}</${name}>`);

function rfc822(iso: string | null | undefined): string | undefined {
  if (!iso) return undefined;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? undefined : d.toUTCString();
}

export function renderRss(feed: RssFeed): string {
  const items = feed.items.map((i) => {
    const enclosure = i.enclosure
      ? `<enclosure url="${escapeXml(i.enclosure.url)}" type="${escapeXml(i.enclosure.type)}" length="${Math.max(0, Math.trunc(i.enclosure.length))}"/>`
      : '';
    const guid = i.guid ? `<guid isPermaLink="false">${escapeXml(i.guid)}</guid>` : '';
    return `<item>${el('title', i.title)}${el('link', i.link)}${el('description', i.description)}${guid}${el('pubDate', rfc822(i.pubDate))}${enclosure}</item>`;
  });
  return `${XML_DECLARATION}<rss version="2.0"><channel>${el('title', feed.title)}${el('link', feed.link)}${el('description', feed.description)}${items.join('')}</channel></rss>`;
}
