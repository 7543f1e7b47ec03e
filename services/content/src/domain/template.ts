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
}

export interface TemplateRecord extends Grouped {
  name: string;
  width: number | null;
  height: number | null;
  /** 0 landscape, 1 portrait, 2 landscape reversed, 3 portrait reversed. */
  orientation: number | null;
  modules: TemplateModuleRecord[];
}
