/**
 * A template as a player lays it out: its size and orientation, and modules (rectangles) each
 * playing a playlist. The same shape travels from content's GraphQL answer to the port's domain
 * value to the manifest a player reads; only the playlist inside a module changes form, so the
 * module fields are copied in one place.
 */
export interface TemplateModule<P> {
  id: string;
  name: string | null;
  left: number;
  top: number;
  width: number;
  height: number;
  playlist: P | null;
  /** A data table the module shows (the web player reads its rows through the player API). */
  dataTableId?: string | null;
}

export interface TemplateLayout<P> {
  id: string;
  name: string;
  width: number | null;
  height: number | null;
  orientation: number | null;
  modules: TemplateModule<P>[];
}

/** The layout fields of `t`, each module's playlist turned into another form by `playlist`. */
export function mapTemplateLayout<P, Q>(t: TemplateLayout<P>, playlist: (p: P) => Q): TemplateLayout<Q> {
  return {
    id: t.id,
    name: t.name,
    width: t.width,
    height: t.height,
    orientation: t.orientation,
    modules: t.modules.map((m) => ({
      id: m.id,
      name: m.name,
      left: m.left,
      top: m.top,
      width: m.width,
      height: m.height,
      playlist: m.playlist ? playlist(m.playlist) : null,
      dataTableId: m.dataTableId ?? null,
    })),
  };
}
