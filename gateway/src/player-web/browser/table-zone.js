// A data-table module (a menu board): the table's rows rendered as an HTML table, refreshed when the
// table changes. Polls the rows with If-None-Match (a 304 costs nothing); the new rows replace the
// old ones in one swap, so there is no empty frame. Offline it keeps what it shows.
import { sleep } from './clock.js';

const POLL_MS = 1000;

const cell = (v) => (v === null || v === undefined ? '' : typeof v === 'boolean' ? (v ? '✓' : '') : String(v));

export class TableZone {
  constructor(el, tableId, ctx) {
    this.el = el;
    this.tableId = tableId;
    this.ctx = ctx;
    this.stopped = false;
    this.etag = null;
    this.started = false;
  }

  start() {
    void this.run();
  }

  stop() {
    this.stopped = true;
  }

  playing() {
    return null;
  }

  async run() {
    while (!this.stopped) {
      try {
        const r = await this.ctx.api.tableRows(this.tableId, this.etag);
        if (r.status === 200) {
          this.etag = r.etag;
          this.render(r.body);
        } else if (r.status === 404) {
          this.ctx.onProblem(`data table ${this.tableId} not found`);
        }
      } catch {
        /* offline: keep what shows */
      }
      if (!this.started) {
        this.started = true;
        this.ctx.onStarted(this);
      }
      await sleep(POLL_MS);
    }
  }

  render(body) {
    const table = document.createElement('table');
    table.className = 'table';
    const head = table.createTHead().insertRow();
    for (const c of body.columns) {
      const th = document.createElement('th');
      th.textContent = c.name;
      head.appendChild(th);
    }
    const tbody = table.createTBody();
    for (const row of body.rows) {
      const tr = tbody.insertRow();
      for (const c of body.columns) tr.insertCell().textContent = cell(row[c.key]);
    }
    this.el.replaceChildren(table);
  }
}
