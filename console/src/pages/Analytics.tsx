/** Plays over time for a chosen range and interval (Chart.js), and the proof-of-play CSV download. */
import { BarElement, CategoryScale, Chart as ChartJS, Legend, LinearScale, Tooltip } from 'chart.js';
import { useState } from 'react';
import { Bar } from 'react-chartjs-2';
import { Async, Empty, ErrorState } from '../components/states';
import { graphql } from '../gql';
import { download, gql } from '../lib/api';
import { RANGES, rangeDates } from '../lib/ranges';
import { useQuery } from '../lib/use-query';

ChartJS.register(CategoryScale, LinearScale, BarElement, Tooltip, Legend);

const PlaysOverTime = graphql(`
  query PlaysOverTime($start: String!, $end: String!, $interval: AnalyticsIntervalType, $timeZone: String) {
    playStatsByTime(startDate: $start, endDate: $end, interval: $interval, timeZone: $timeZone, limit: 1000) {
      periodStart
      totalPlays
      totalDuration
    }
  }
`);

export function AnalyticsPage() {
  const [range, setRange] = useState('Last 24 hours');
  const { days, interval } = RANGES[range]!;
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const [span] = useState(() => ({ now: Date.now() }));
  const { start, end } = rangeDates(days, span.now);
  const q = useQuery(() => gql(PlaysOverTime, { start, end, interval, timeZone }), [range]);
  const [csvError, setCsvError] = useState<Error>();
  const [csvBusy, setCsvBusy] = useState(false);
  const csv = async () => {
    setCsvBusy(true);
    setCsvError(undefined);
    try {
      await download(
        '/report/export',
        { report_id: 'proof_of_play', format: 'CSV', start_date: start, end_date: end },
        `proof-of-play-${start.slice(0, 10)}.csv`,
      );
    } catch (e) {
      setCsvError(e instanceof Error ? e : new Error(String(e)));
    } finally {
      setCsvBusy(false);
    }
  };
  return (
    <section>
      <h1>Analytics</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Range
          <select value={range} onChange={(e) => setRange(e.target.value)}>
            {Object.keys(RANGES).map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => void csv()} disabled={csvBusy}>
          {csvBusy ? 'Preparing CSV…' : 'Download proof of play (CSV)'}
        </button>
      </form>
      {csvError && <ErrorState error={csvError} />}
      <Async q={q} what="plays">
        {(d) => {
          const rows = d.playStatsByTime ?? [];
          const total = rows.reduce((n, r) => n + r.totalPlays, 0);
          if (total === 0)
            return (
              <Empty title="No plays in this range">
                <p>Plays are counted once screens report them (within a minute of playing). Pick a longer range or check that screens have schedules.</p>
              </Empty>
            );
          const label = (iso: string) =>
            interval === 'HOUR' ? new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : new Date(iso).toLocaleDateString();
          return (
            <figure className="card chart">
              <figcaption>
                {total} plays, {Math.round(rows.reduce((n, r) => n + r.totalDuration, 0) / 60)} minutes on screen ({range.toLowerCase()}, {timeZone})
              </figcaption>
              <div className="chart-box">
                <Bar
                  aria-label={`Plays per ${interval.toLowerCase()}`}
                  role="img"
                  data={{
                    labels: rows.map((r) => label(r.periodStart)),
                    datasets: [{ label: 'Plays', data: rows.map((r) => r.totalPlays), backgroundColor: '#2457c5' }],
                  }}
                  options={{ maintainAspectRatio: false, animation: false, plugins: { legend: { display: false } } }}
                />
              </div>
              <table className="visually-hidden">
                <caption>Plays per period</caption>
                <tbody>
                  {rows.map((r) => (
                    <tr key={r.periodStart}>
                      <th scope="row">{label(r.periodStart)}</th>
                      <td>{r.totalPlays}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </figure>
          );
        }}
      </Async>
    </section>
  );
}
