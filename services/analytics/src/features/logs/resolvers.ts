/** Play and ping logs: the raw records of a period. */
import type { ReadTable } from '../../shared/reads.js';
import { readPingLogs, readPlayLogs } from './read-logs.js';

export const logReads: ReadTable = {
  playLogs: (s, p, a) => readPlayLogs(s, p, a),
  pingLogs: (s, p, a) => readPingLogs(s, p, a),
};
