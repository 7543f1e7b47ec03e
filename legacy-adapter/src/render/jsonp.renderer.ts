/**
 * JSONP: `/**\/ typeof cb === 'function' && cb(<json>);`. The leading comment defeats the
 * Rosetta-Flash style of attack (a response starting with attacker-chosen bytes), the typeof
 * guard keeps a missing callback from throwing, and the name was validated against
 * CALLBACK_NAME before we get here (checked again: this function must never emit anything else).
 * Served as text/javascript with `X-Content-Type-Options: nosniff`.
 */
import { isValidCallbackName } from '../http/negotiation.js';
import { renderJson } from './json.renderer.js';

export function renderJsonp(callback: string, value: unknown): string {
  if (!isValidCallbackName(callback)) throw new Error('invalid JSONP callback name');
  return `/**/ typeof ${callback} === 'function' && ${callback}(${renderJson(value)});`;
}

export const JSONP_TYPE = 'text/javascript; charset=utf-8';
