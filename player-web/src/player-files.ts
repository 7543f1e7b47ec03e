/** The player's and the fleet view's static files (served as they are), read from browser/. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface PlayerFiles {
  playHtml: string;
  playerCss: string;
  screensHtml: string;
  screensJs: string;
}

const BROWSER = fileURLToPath(new URL('./browser/', import.meta.url));
const read = (f: string) => readFileSync(`${BROWSER}${f}`, 'utf8');

/** Read once by the server that serves them (a few kilobytes). */
export function readPlayerFiles(): PlayerFiles {
  return { playHtml: read('play.html'), playerCss: read('player.css'), screensHtml: read('screens.html'), screensJs: read('screens.js') };
}
