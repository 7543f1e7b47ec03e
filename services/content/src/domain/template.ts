import { AppError } from '@pylon/kit';
import type { Grouped } from './group.js';

/** A zone of a template, stored inside the template document; pixels from the top-left corner. */
export interface TemplateModuleRecord {
  id: string;
  name: string | null;
  type: string | null;
  left: number;
  top: number;
  width: number;
  height: number;
  playlistId: string | null;
  /** A data table whose rows the module shows (a menu board); read as the screen's account. Absent on older records. */
  dataTableId?: string | null;
}

export interface TemplateRecord extends Grouped {
  name: string;
  width: number | null;
  height: number | null;
  /** 0 landscape, 1 portrait, 2 landscape reversed, 3 portrait reversed. */
  orientation: number | null;
  modules: TemplateModuleRecord[];
}

/** Every module must lie inside the template: a zone past the edge would be cut off on screen. */
export function checkModulesInside(width: number, height: number, modules: readonly TemplateModuleRecord[]): void {
  modules.forEach((m, i) => {
    const field = `modules[${i}]`;
    if (m.left + m.width > width)
      throw new AppError('BAD_USER_INPUT', `${field} ends at x=${m.left + m.width}, past the template width ${width}`, { field: `${field}.width` });
    if (m.top + m.height > height)
      throw new AppError('BAD_USER_INPUT', `${field} ends at y=${m.top + m.height}, past the template height ${height}`, { field: `${field}.height` });
  });
  const ids = new Set<string>();
  modules.forEach((m, i) => {
    if (ids.has(m.id)) throw new AppError('BAD_USER_INPUT', `modules[${i}].id '${m.id.slice(0, 100)}' is used twice`, { field: `modules[${i}].id` });
    ids.add(m.id);
  });
}
