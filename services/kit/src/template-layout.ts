/**
 * A template as a player lays it out: its size and orientation, and modules (rectangles) each
 * playing a playlist. The same shape travels from content's stored template (modules naming their
 * playlist by id) through scheduling's content port (over GraphQL when distributed) to the manifest
 * a player reads; only the playlist inside a module changes form, so the layout fields are copied
 * here, once, for content and scheduling alike. So are the playlist and its files as a player
 * plays them (PlayerPlaylist, PlayerMedia), the form content answers and scheduling's port reads.
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

/** A file as a player fetches it. */
export interface PlayerMedia {
  id: string;
  name: string;
  mimeType: string | null;
  /** Signed, expiring address (relative to the REST base unless content has a public base URL), or the external one. */
  url: string | null;
  size: number | null;
  sha512: string | null;
  duration: number | null;
}

/** A playlist's source as a player plays it. */
export interface PlayerSource {
  id: string;
  name: string | null;
  type: string;
  interval: number | null;
  media: PlayerMedia | null;
  /** A web page source's address (no media); absent or null for files. */
  url?: string | null;
  /** The source's effective validity window (its own and its file's, intersected), ISO 8601; absent or null sides are open. */
  validFrom?: string | null;
  validUntil?: string | null;
}

/**
 * A playlist as a player plays it (sources in play order): what content's player content answers
 * and scheduling's content port reads, in process or over content's GraphQL.
 */
export interface PlayerPlaylist {
  kind: 'playlist';
  id: string;
  name: string;
  sources: PlayerSource[];
}

/** A template with each module's playlist as a player plays it. */
export interface PlayerTemplate extends TemplateLayout<PlayerPlaylist> {
  kind: 'template';
}

/** The fields every form of a module has, whatever holds its playlist. */
export type TemplateModuleFields = Omit<TemplateModule<unknown>, 'playlist'>;
/** The fields every form of a template has, besides its modules. */
export type TemplateLayoutFields = Omit<TemplateLayout<unknown>, 'modules'>;

/**
 * The layout fields of `t` (any record that has them: a stored template, a GraphQL answer), each
 * module's playlist given by `playlistOf(module)`; other fields of `t` and its modules are left out.
 */
export function templateLayoutOf<M extends TemplateModuleFields, Q>(
  t: TemplateLayoutFields & { modules?: readonly M[] | null },
  playlistOf: (module: M) => Q | null,
): TemplateLayout<Q> {
  return {
    id: t.id,
    name: t.name,
    width: t.width,
    height: t.height,
    orientation: t.orientation,
    modules: (t.modules ?? []).map((m) => ({
      id: m.id,
      name: m.name,
      left: m.left,
      top: m.top,
      width: m.width,
      height: m.height,
      playlist: playlistOf(m),
      dataTableId: m.dataTableId ?? null,
    })),
  };
}

/** The layout fields of `t`, each module's playlist turned into another form by `playlist`. */
export function mapTemplateLayout<P, Q>(t: TemplateLayout<P>, playlist: (p: P) => Q): TemplateLayout<Q> {
  return templateLayoutOf(t, (m) => (m.playlist ? playlist(m.playlist) : null));
}
