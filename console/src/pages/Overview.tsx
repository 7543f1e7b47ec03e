/** The fleet at a glance: online/offline/alerting counts, a map of the screens, open alerts, events as they happen. */
import { useEffect, useState } from 'react';
import { FleetMap } from '../components/FleetMap';
import { Async, AsyncList, Empty } from '../components/states';
import { graphql } from '../gql';
import { gql } from '../lib/api';
import { followEvents, type PylonEvent, type StreamStatus } from '../lib/events';
import { fleetTiles } from '../lib/fleet-state';
import { useRights } from '../lib/permissions';
import { Link } from '../lib/router';
import { useQuery } from '../lib/use-query';

const FleetCounts = graphql(`
  query FleetCounts {
    total: deviceCount
    online: deviceCount(where: { isOnline: { eq: true } })
  }
`);

// The map's screens: the first 1000 (the API's page limit); the map says when there are more.
const MapScreens = graphql(`
  query MapScreens {
    deviceCount
    device(limit: 1000, order: [{ name: ASC }]) {
      id
      name
      isOnline
      location {
        city
        latitude
        longitude
      }
    }
  }
`);

const OpenAlerts = graphql(`
  query OpenAlerts {
    alertCount(activeOnly: true)
    alert(activeOnly: true, limit: 200) {
      id
      createdOn
      reason
      devices {
        id
        name
        isOnline
      }
    }
  }
`);

function Stat({ label, value, tone }: { label: string; value: number | string; tone?: string }) {
  return (
    <div className={`stat ${tone ?? ''}`}>
      <span className="stat-value">{value}</span>
      <span className="stat-label">{label}</span>
    </div>
  );
}

function LiveEvents() {
  const [events, setEvents] = useState<PylonEvent[]>([]);
  const [status, setStatus] = useState<StreamStatus>({ state: 'connecting' });
  useEffect(() => followEvents((e) => setEvents((l) => [e, ...l].slice(0, 20)), setStatus), []);
  return (
    <section aria-labelledby="events-h">
      <h2 id="events-h">
        Recent events <span className={`badge live-${status.state}`}>{status.state}</span>
      </h2>
      {status.state === 'forbidden' ? (
        <Empty title="No events for your role">{status.detail}</Empty>
      ) : events.length === 0 ? (
        <Empty title="No events since you opened this page">
          <p>Events appear here as they happen: screens pairing, going offline, alerts, content changes.</p>
        </Empty>
      ) : (
        <ol className="events" aria-live="polite">
          {events.map((e) => (
            <li key={e.id}>
              <time dateTime={e.timestamp}>{new Date(e.timestamp).toLocaleTimeString()}</time> <code>{e.type}</code>{' '}
              {typeof e.data.device_id === 'string' && <Link to={`/screens/${e.data.device_id}`}>screen</Link>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function OverviewPage() {
  const rights = useRights();
  const counts = useQuery(() => gql(FleetCounts), []);
  const alerts = useQuery(() => (rights.can('Alerts') ? gql(OpenAlerts) : Promise.resolve(null)), []);
  const mapScreens = useQuery(() => gql(MapScreens), []);
  const alerted = alerts.data?.alert?.flatMap((a) => a.devices) ?? [];
  const alertingIds = new Set(alerted.map((d) => d.id));
  return (
    <section>
      <h1>Overview</h1>
      <Async q={counts} what="the fleet">
        {(c) => {
          const tiles = fleetTiles(c.total, c.online, alerted);
          return c.total === 0 ? (
            <Empty title="No screens yet">
              <p>
                Open <code>/play</code> on a screen's browser and <Link to="/pair">pair it with the code it shows</Link>.
              </p>
            </Empty>
          ) : (
            <>
              <div className="stats">
                <Stat label="screens" value={c.total} />
                <Stat label="online" value={alerts.data ? tiles.online : c.online} tone="ok" />
                <Stat label="offline" value={tiles.offline} tone={tiles.offline ? 'warn' : ''} />
                {alerts.data && <Stat label="alerting" value={tiles.alerting} tone={tiles.alerting ? 'bad' : ''} />}
              </div>
              {alerts.data && (
                <p className="muted" data-testid="count-rule">
                  Each screen counts once: offline, else alerting (online with an open alert), else online.
                </p>
              )}
            </>
          );
        }}
      </Async>
      <section aria-labelledby="map-h">
        <h2 id="map-h">Map</h2>
        <AsyncList q={mapScreens} what="the map" of={(m) => m.device} empty="No screens to place" hint="Paired screens with a location appear here.">
          {(screens, m) => <FleetMap screens={screens} alerting={alertingIds} total={m.deviceCount} />}
        </AsyncList>
      </section>
      <div className="columns">
        {rights.can('Alerts') && (
          <section aria-labelledby="alerts-h">
            <h2 id="alerts-h">Open alerts</h2>
            <AsyncList q={alerts} what="alerts" of={(a) => a?.alert} empty="No open alerts" hint="Every screen is within its alert rules.">
              {(open) => (
                <ul className="alerts">
                  {open.slice(0, 10).map((al) => (
                    <li key={al.id}>
                      <strong>{al.reason ?? 'alert'}</strong> on{' '}
                      {al.devices.map((d, i) => (
                        <span key={d.id}>
                          {i > 0 && ', '}
                          <Link to={`/screens/${d.id}`}>{d.name}</Link>
                        </span>
                      ))}{' '}
                      <time dateTime={al.createdOn}>since {new Date(al.createdOn).toLocaleString()}</time>
                    </li>
                  ))}
                </ul>
              )}
            </AsyncList>
          </section>
        )}
        <LiveEvents />
      </div>
    </section>
  );
}
