// A data-table module (a menu board): the table's rows rendered as an HTML table, refreshed when the
// table changes. The screen's long-polling ping names the tables it shows, so a change ends the
// wait and the player calls refresh() on every table zone after each ping answer: a conditional
// read (If-None-Match; a 304 costs nothing) that swaps in the new rows in one step, so there is no
// empty frame. No polling of its own: without pings (offline) it keeps what it shows.

const cell = (v) => (v === null || v === undefined ? '' : typeof v === 'boolean' ? (v ? '\u2713' : '') : String(v));

export class TableZone {
  constructor(el, tableId, ctx) {
    this.el = el;
    this.tableId = tableId;
    this.ctx = ctx;
    this.stopped = false;
    this.etag = null;
    this.started = false;
    this.reading = null;
    this.again = false;
  }

  start() {
    void this.refresh();
  }

  stop() {
    this.stopped = true;
  }

  playing() {
    return null;
  }

  /** Re-reads the rows (once more after the read in flight, when asked during it). */
  async refresh() {
    if (this.stopped) return;
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = this.read().finally(() => {
      this.reading = null;
      if (this.again) {
        this.again = false;
        void this.refresh();
      }
    });
    return this.reading;
  }

  async read() {
    try {
      const r = await this.ctx.api.tableRows(this.tableId, this.etag);
      if (this.stopped) return;
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
