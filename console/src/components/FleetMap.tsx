/**
 * The fleet on a map drawn from bundled geodata (Natural Earth 110m land from world-atlas, public
 * domain, converted by topojson-client): no tile server, nothing fetched. Equirectangular: x is the
 * longitude, y minus the latitude, so the SVG viewBox alone zooms to the screens' bounding box (a
 * fleet in one city fills the map instead of being one pixel). Each dot links to its screen; the
 * state is told by shape as well as colour, by the console's one rule (lib/fleet-state.ts), so the
 * legend's counts agree with the Overview's tiles.
 */
import { feature } from 'topojson-client';
import land110m from 'world-atlas/land-110m.json';
import { countStates, SCREEN_STATES, screenState, type ScreenState } from '../lib/fleet-state';
import { Link } from '../lib/router';

export interface MapScreen {
  id: string;
  name: string;
  isOnline: boolean;
  location?: { latitude?: number | null; longitude?: number | null; city?: string | null } | null;
}

let landPath: string | undefined;
/** The land as one SVG path in (longitude, -latitude), built on first use. */
function land(): string {
  if (landPath !== undefined) return landPath;
  const topo = land110m as unknown as Parameters<typeof feature>[0];
  const polys: number[][][][] = [];
  const land = feature(topo, topo.objects.land!) as unknown as { features: { geometry: { type: string; coordinates: number[][][] | number[][][][] } }[] };
  for (const { geometry: g } of land.features) {
    if (g.type === 'Polygon') polys.push(g.coordinates as number[][][]);
    else polys.push(...(g.coordinates as number[][][][]));
  }
  // Rings that cross the antimeridian (Russia, Fiji, Antarctica) jump by 360 degrees: unwrapped here so
  // they run past 180 instead of striping the map; the map draws the land three times: as is and shifted by -360 and +360.
  const unwrap = (ring: number[][]) => {
    let shift = 0;
    return ring.map(([x, y], i) => {
      const prev = i > 0 ? ring[i - 1]![0]! : x!;
      if (x! - prev > 180) shift -= 360;
      else if (prev - x! > 180) shift += 360;
      return `${(x! + shift).toFixed(2)},${(-y!).toFixed(2)}`;
    });
  };
  landPath = polys.flatMap((rings) => rings.map((ring) => 'M' + unwrap(ring).join('L') + 'Z')).join('');
  return landPath;
}

/** The view: the screens' bounding box, padded, at least 8 degrees wide, 2:1 like the world, inside the world. */
function view(points: { x: number; y: number }[]): { x: number; y: number; w: number; h: number } {
  if (points.length === 0) return { x: -180, y: -90, w: 360, h: 180 };
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  let w = Math.max(8, (x1 - x0) * 1.3, (y1 - y0) * 1.3 * 2);
  w = Math.min(w, 360);
  const h = w / 2;
  const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);
  return { x: clamp((x0 + x1) / 2 - w / 2, -180, 180 - w), y: clamp((y0 + y1) / 2 - h / 2, -90, 90 - h), w, h };
}

function Marker({ state, x, y, r }: { state: ScreenState; x: number; y: number; r: number }) {
  if (state === 'alerting')
    return <polygon className="m-alerting" points={`${x},${y - r * 1.3} ${x + r * 1.2},${y + r * 0.9} ${x - r * 1.2},${y + r * 0.9}`} />;
  if (state === 'offline') return <rect className="m-offline" x={x - r * 0.85} y={y - r * 0.85} width={r * 1.7} height={r * 1.7} />;
  return <circle className="m-online" cx={x} cy={y} r={r} />;
}

export function FleetMap({ screens, alerting, total }: { screens: readonly MapScreen[]; alerting: Set<string>; total: number }) {
  const located = screens.filter((s) => typeof s.location?.latitude === 'number' && typeof s.location?.longitude === 'number');
  const missing = screens.length - located.length;
  // Screens at one address share a point: spread them on a small ring so each dot can be seen and clicked.
  const groups = new Map<string, MapScreen[]>();
  for (const s of located) {
    const k = `${s.location!.latitude!.toFixed(3)},${s.location!.longitude!.toFixed(3)}`;
    groups.set(k, [...(groups.get(k) ?? []), s]);
  }
  const v = view(located.map((s) => ({ x: s.location!.longitude!, y: -s.location!.latitude! })));
  const r = v.w / 110;
  const dots = [...groups.values()].flatMap((g) =>
    g.map((s, i) => {
      const spread = g.length > 1 ? r * (1.4 + g.length * 0.25) : 0;
      const a = (2 * Math.PI * i) / g.length - Math.PI / 2;
      const state = screenState(s.isOnline, alerting.has(s.id));
      return { s, state, x: s.location!.longitude! + spread * Math.cos(a), y: -s.location!.latitude! + spread * Math.sin(a) };
    }),
  );
  const counts = countStates(located, alerting);
  return (
    <figure className="fleet-map">
      <svg viewBox={`${v.x} ${v.y} ${v.w} ${v.h}`} role="group" aria-label={`Map of ${located.length} located screens`} data-testid="fleet-map">
        <rect className="sea" x={-180} y={-90} width={360} height={180} aria-hidden="true" />
        <g className="land" aria-hidden="true">
          <path d={land()} />
          <path d={land()} transform="translate(-360 0)" />
          <path d={land()} transform="translate(360 0)" />
        </g>
        {dots.map(({ s, state, x, y }) => (
          <Link key={s.id} to={`/screens/${encodeURIComponent(s.id)}`} aria-label={`${s.name}: ${state}${s.location?.city ? `, ${s.location.city}` : ''}`}>
            <title>{`${s.name} (${state})`}</title>
            <Marker state={state} x={x} y={y} r={r} />
          </Link>
        ))}
      </svg>
      <figcaption>
        <ul className="map-legend" aria-label="Legend">
          {SCREEN_STATES.map((st) => (
            <li key={st}>
              <svg viewBox="-1.5 -1.5 3 3" width="14" height="14" aria-hidden="true">
                <Marker state={st} x={0} y={0} r={1} />
              </svg>
              {st} ({counts[st]})
            </li>
          ))}
        </ul>
        {missing > 0 && (
          <p data-testid="no-location">
            {missing} screen{missing === 1 ? ' has' : 's have'} no location
            {screens.length < total ? ` (of the first ${screens.length} of ${total} screens)` : ''}: set one in the API (location.latitude and longitude) to
            place it here.
          </p>
        )}
      </figcaption>
    </figure>
  );
}
