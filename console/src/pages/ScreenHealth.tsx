/**
 * A screen's ping health (deviceMetrics): uptime, CPU and memory per hour over the last 24 hours or
 * per day over the last 7, drawn with Chart.js; a summary line and a visually hidden table carry the
 * same figures for screen readers.
 */
import { CategoryScale, Chart as ChartJS, Legend, LinearScale, LineElement, PointElement, Tooltip } from 'chart.js';
import { useState } from 'react';
import { Line } from 'react-chartjs-2';
import { Async, Empty } from '../components/states';
import { graphql } from '../gql';
import { gql } from '../lib/api';
import { RANGES, rangeDates } from '../lib/ranges';
import { useRights } from '../lib/permissions';
import { useQuery } from '../lib/use-query';

ChartJS.register(CategoryScale, LinearScale, LineElement, PointElement, Tooltip, Legend);

const ScreenHealthQuery = graphql(`
  query ScreenHealth($id: String!, $start: String!, $end: String!, $interval: AnalyticsIntervalType, $timeZone: String) {
    deviceMetrics(deviceId: [$id], startDate: $start, endDate: $end, interval: $interval, timeZone: $timeZone, limit: 1000) {
      periodStart
      uptimePercentage
      avgCpuUsage
      maxCpuUsage
      avgMemoryUsage
      maxMemoryUsage
      alertCount
    }
  }
`);

/** Ping health is charted over a day or a week. */
const HEALTH_RANGES = Object.keys(RANGES).filter((r) => RANGES[r]!.days <= 7);

const pct = (n: number) => `${Math.round(n * 10) / 10} %`;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

export function ScreenHealth({ id }: { id: string }) {
  const rights = useRights();
  const [range, setRange] = useState('Last 24 hours');
  const { days, interval } = RANGES[range]!;
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  // The range ends when it was last asked for: "Check again" and a new range move it to the present.
  const [now, setNow] = useState(() => Date.now());
  const { start, end } = rangeDates(days, now);
  const allowed = rights.can('Analytics');
  const q = useQuery(() => (allowed ? gql(ScreenHealthQuery, { id, start, end, interval, timeZone }) : Promise.resolve(null)), [id, range, allowed, now]);
  return (
    <section aria-labelledby="health-h" className="card">
      <h2 id="health-h">Ping health</h2>
      {!allowed ? (
        <Empty title="Health charts need the Analytics view right">
          <p>Ask an administrator for a role that can view analytics.</p>
        </Empty>
      ) : (
        <>
          <form className="filters" onSubmit={(e) => e.preventDefault()}>
            <label>
              Range
              <select
                value={range}
                onChange={(e) => {
                  setRange(e.target.value);
                  setNow(Date.now());
                }}
              >
                {HEALTH_RANGES.map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </select>
            </label>
          </form>
          <Async q={q} what="ping health">
            {(d) => {
              const rows = d?.deviceMetrics ?? [];
              // Periods without a ping are zeros: they count for uptime, not for the CPU and memory averages.
              const pinged = rows.filter((r) => r.uptimePercentage > 0);
              if (pinged.length === 0)
                return (
                  <Empty title={`No pings from this screen in the ${range.toLowerCase()}`}>
                    <p>
                      Health appears within a minute or two of the screen's first pings; if it stays empty, check the screen's power and network, or pick a
                      longer range.
                    </p>
                    <button type="button" onClick={() => setNow(Date.now())}>
                      Check again
                    </button>
                  </Empty>
                );
              const label = (iso: string) =>
                interval === 'HOUR' ? new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : new Date(iso).toLocaleDateString();
              const uptime = mean(rows.map((r) => r.uptimePercentage));
              const cpu = mean(pinged.map((r) => r.avgCpuUsage));
              const memory = mean(pinged.map((r) => r.avgMemoryUsage));
              const cpuPeak = Math.max(...pinged.map((r) => r.maxCpuUsage));
              const alerts = rows.reduce((n, r) => n + r.alertCount, 0);
              return (
                <figure className="chart">
                  <figcaption data-testid="health-summary">
                    {range}: uptime {pct(uptime)}, CPU {pct(cpu)} on average (peak {pct(cpuPeak)}), memory {pct(memory)} on average
                    {alerts ? `, ${alerts} health alert ping${alerts === 1 ? '' : 's'}` : ''} ({timeZone})
                  </figcaption>
                  <div className="chart-box">
                    <Line
                      aria-label={`Uptime, CPU and memory per ${interval.toLowerCase()}, in percent; the table below has the figures`}
                      role="img"
                      data={{
                        labels: rows.map((r) => label(r.periodStart)),
                        datasets: [
                          { label: 'Uptime %', data: rows.map((r) => r.uptimePercentage), borderColor: '#16723a', backgroundColor: '#16723a' },
                          {
                            label: 'CPU % (avg)',
                            data: rows.map((r) => r.avgCpuUsage),
                            borderColor: '#2457c5',
                            backgroundColor: '#2457c5',
                            borderDash: [6, 3],
                          },
                          {
                            label: 'Memory % (avg)',
                            data: rows.map((r) => r.avgMemoryUsage),
                            borderColor: '#8a5a00',
                            backgroundColor: '#8a5a00',
                            borderDash: [2, 2],
                          },
                        ],
                      }}
                      options={{ maintainAspectRatio: false, animation: false, scales: { y: { min: 0, max: 100 } } }}
                    />
                  </div>
                  <table className="visually-hidden">
                    <caption>Ping health per {interval.toLowerCase()}, in percent</caption>
                    <thead>
                      <tr>
                        <th scope="col">Period</th>
                        <th scope="col">Uptime</th>
                        <th scope="col">CPU average</th>
                        <th scope="col">CPU peak</th>
                        <th scope="col">Memory average</th>
                      </tr>
                    </thead>
                    <tbody>
                      {rows.map((r) => (
                        <tr key={r.periodStart}>
                          <th scope="row">{label(r.periodStart)}</th>
                          <td>{pct(r.uptimePercentage)}</td>
                          <td>{pct(r.avgCpuUsage)}</td>
                          <td>{pct(r.maxCpuUsage)}</td>
                          <td>{pct(r.avgMemoryUsage)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </figure>
              );
            }}
          </Async>
        </>
      )}
    </section>
  );
}
