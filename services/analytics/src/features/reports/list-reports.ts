/** GET /report: the catalog, or the one report `id` names (an unknown id is an empty list, as a filter). */
import { guardHandler, type Principal } from '@pylon/kit';
import { catalogEntry, REPORTS, type ReportEntry } from '../../domain/reports/catalog.js';

export function listReports(caller: Principal, id?: string): ReportEntry[] {
  guardHandler(caller, 'listReports');
  return REPORTS.filter((r) => id === undefined || r.id === id).map(catalogEntry);
}
