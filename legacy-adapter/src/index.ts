/** Pylon legacy REST adapter: `createLegacyApp` is mounted by the all-in-one server on LEGACY_PORT. */
export { createLegacyApp, type LegacyAppOptions } from './app.js';
export { CALLBACK_NAME, isValidCallbackName, negotiate, type LegacyFormat, type Negotiated } from './http/negotiation.js';
export { parseXmlBody, type XmlBody } from './body/xml.parser.js';
export { parseJsonBody } from './body/json.parser.js';
export { renderJsonp } from './render/jsonp.renderer.js';
export { renderXml } from './render/xml.renderer.js';
export { renderRss, type RssFeed, type RssItem } from './render/rss.renderer.js';
export { toLegacyAccount, LEGACY_ACCOUNT_FIELDS, type LegacyAccount } from './resources/account.record.js';
export { toLegacyDevice, type LegacyDevice } from './resources/device.record.js';
