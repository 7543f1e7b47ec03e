/** The account's audit trail (owner-only: its @policy). */
import type { ReadTable } from '../../shared/reads.js';
import { readAuditEvents } from './read-audit.js';

export const auditReads: ReadTable = {
  auditEvent: (s, p, a) => readAuditEvents(s, p, a),
};
