/**
 * Data tables at volume, side by side in one process on the embedded backends (LMDB):
 *   tsx bench/src/datatables.scenarios.ts   (BENCH_ROWS=1000000 by default)
 * 1. batch create through the subgraph (batchCreateDataTableRows, 100 rows/call) vs a raw
 *    documents-port insertMany of the same 100-row documents, interleaved call by call, into two
 *    baselines: the rows collection itself (its order and sort-slot indexes, so the ratio is what
 *    the API adds: validation, ids, versions, table counters, GraphQL) and an unindexed collection
 *    (what a store write costs with no index at all);
 * 2. import of a 100k-row CSV (importDataTableRows use case, streamed);
 * 3. p50/p99 of a filtered sorted page (filter on one column, sort by another, pageSize 50)
 *    on a BENCH_ROWS-row table, following continuation tokens; a filtered totalCount the first
 *    time, again, and after a write (carried across it, use-cases/filtered-counts.ts);
 * 4. export of the BENCH_ROWS rows as CSV to a discarding sink: time and peak RSS above idle.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createDataTablesSubgraph } from '@pylon/datatables';
import { newRowId } from '@pylon/datatables/shared/data-table.repository';
import { exportRowsCsv } from '@pylon/datatables/features/import-export/export-rows';
import { importRowsCsv } from '@pylon/datatables/features/import-export/import-rows';
import { sortSlots } from '@pylon/datatables/domain/cells';
import { DATA_TABLE_ROWS } from '@pylon/datatables/domain/collections';
import { watchRss } from './rss.js';

export interface DataTablesBenchOptions {
  /** Rows of the big table (pages, export). */
  rows: number;
  /** batchCreateDataTableRows calls of 100 rows (and as many raw insertMany calls). */
  batchCalls: number;
  importRows: number;
  pages: number;
}

/** Runs the four measurements, printing one line each; throws when a scenario fails. */
export async function dataTablesScenario(o: DataTablesBenchOptions): Promise<void> {
  const who = testPrincipal('bench');
  const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-dt-'));
  const store = await createLmdbDocumentStore({ path: dir });
  const sg = createDataTablesSubgraph({ documents: store, tokens: testTokens });
  const run = subgraphRunner(() => sg, who);
  const COLUMNS = [
    { name: 'Name', key: 'name', type: 'TEXT', sortable: true },
    { name: 'Price', key: 'price', type: 'NUMBER', sortable: true },
    { name: 'Category', key: 'cat', type: 'TEXT' },
    { name: 'Vegan', key: 'vegan', type: 'BOOLEAN' },
  ];
  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] as number;
  const cell = (i: number) => ({ name: `item ${i}`, price: ((i * 7919) % 10000) / 100, cat: `c${i % 10}`, vegan: i % 3 === 0 });

  async function table(name: string): Promise<string> {
    const r = await run('mutation($i: CreateDataTableInput!) { createDataTable(input: $i) { table { id } } }', { i: { name, columns: COLUMNS } });
    return (r.data as { createDataTable: { table: { id: string } } }).createDataTable.table.id;
  }

  // 1. batch create vs raw insertMany, interleaved call by call so both see the same machine load
  {
    const t = await table('batch');
    const rawTable = await table('batch raw');
    const cols = (await sg.repo.getTable('bench', rawTable))!.columns;
    const rowsCollection = store.collection<Record<string, unknown>>(DATA_TABLE_ROWS);
    const unindexed = store.collection<Record<string, unknown>>({ name: 'benchRaw' });
    const calls = o.batchCalls;
    let n = 0;
    let m = 0;
    let apiMs = 0;
    let rowsMs = 0;
    let bareMs = 0;
    for (let c = 0; c < calls; c++) {
      const rows = Array.from({ length: 100 }, () => ({ data: cell(n++) }));
      const t0 = performance.now();
      const r = await run('mutation($i: BatchCreateDataTableRowsInput!) { batchCreateDataTableRows(input: $i) { successCount } }', { i: { tableId: t, rows } });
      apiMs += performance.now() - t0;
      if (r.errors) throw new Error(JSON.stringify(r.errors));
      // The documents a row is stored as (same fields, same indexes), written by the port alone.
      const docs = Array.from({ length: 100 }, () => {
        const data = cell(m++);
        return { id: newRowId(), tableId: rawTable, sortOrder: m * 1024, data, ix: sortSlots(cols, data), rev: 1 };
      });
      const t1 = performance.now();
      await rowsCollection.insertMany('bench', docs);
      rowsMs += performance.now() - t1;
      const bare = docs.map(({ tableId, sortOrder, data }) => ({ tableId, sortOrder, data }));
      const t2 = performance.now();
      await unindexed.insertMany('bench', bare);
      bareMs += performance.now() - t2;
    }
    const rate = (ms: number) => (calls * 100) / (ms / 1000);
    console.log(
      `batch create (interleaved): ${rate(apiMs).toFixed(0)} rows/s via batchCreateDataTableRows; raw insertMany of the same row documents into the rows collection ${rate(rowsMs).toFixed(0)} rows/s (ratio ${(rowsMs / apiMs).toFixed(2)}x), into an unindexed collection ${rate(bareMs).toFixed(0)} rows/s (ratio ${(bareMs / apiMs).toFixed(2)}x)`,
    );
  }

  // 2. import 100k-row CSV
  {
    const t = await table('import');
    const lines = ['name,price,cat,vegan'];
    for (let i = 0; i < o.importRows; i++) {
      const c = cell(i);
      lines.push(`${c.name},${c.price},${c.cat},${c.vegan}`);
    }
    const csv = lines.join('\n');
    const t0 = performance.now();
    const r = await importRowsCsv(sg.runtime, who, t, csv);
    console.log(
      `import ${o.importRows}-row CSV (${(csv.length / 1e6).toFixed(1)} MB): ${((performance.now() - t0) / 1000).toFixed(2)} s, imported ${r.imported}, failed ${r.failed}`,
    );
  }

  // 3. filtered sorted pages on an o.rows-row table
  const big = await table('big');
  {
    const def = await sg.repo.getTable('bench', big);
    const cols = def!.columns;
    const t0 = performance.now();
    for (let i = 0; i < o.rows; i += 5000) {
      const chunk = Array.from({ length: Math.min(5000, o.rows - i) }, (_, j) => {
        const data = cell(i + j);
        return { id: newRowId(), tableId: big, sortOrder: (i + j + 1) * 1024, data, ix: sortSlots(cols, data), rev: 1 };
      });
      await sg.repo.insertRows('bench', chunk);
    }
    await sg.repo.touchTable('bench', big, o.rows);
    console.log(`seeded ${o.rows} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const Q =
      'query($t: String!, $f: String, $s: String, $d: String, $c: String) { dataTableRows(tableId: $t, filter: $f, sort: $s, sortDir: $d, pageSize: 50, continuationToken: $c) { continuationToken data { id data } } }';
    const cases = [
      { name: 'filter cat=c3, sort price asc', f: '{"cat":"c3"}', s: 'price', d: 'asc' },
      { name: 'filter vegan=true & price>=50, sort name desc', f: '{"vegan":true,"price":{"gte":50}}', s: 'name', d: 'desc' },
      { name: 'filter 90<=price<91, sort price asc', f: '{"price":{"gte":90,"lt":91}}', s: 'price', d: 'asc' },
    ];
    for (const c of cases) {
      const times: number[] = [];
      let token: string | null = null;
      for (let i = 0; i < o.pages; i++) {
        const s = performance.now();
        const r = await run(Q, { t: big, f: c.f, s: c.s, d: c.d, c: token });
        times.push(performance.now() - s);
        if (r.errors) throw new Error(JSON.stringify(r.errors));
        token = (r.data as { dataTableRows: { continuationToken: string | null } }).dataTableRows.continuationToken;
      }
      console.log(`page (${c.name}), ${o.pages} consecutive pages: p50 ${pct(times, 0.5).toFixed(1)} ms, p99 ${pct(times, 0.99).toFixed(1)} ms`);
    }
    const tc = performance.now();
    const r = await run('query($t: String!) { dataTableRows(tableId: $t, filter: "{\\"cat\\":\\"c3\\"}", sort: "price", pageSize: 50) { totalCount } }', {
      t: big,
    });
    console.log(
      `totalCount of the filtered query (full count, first time at this generation): ${(performance.now() - tc).toFixed(0)} ms = ${(r.data as { dataTableRows: { totalCount: number } }).dataTableRows.totalCount}`,
    );
    const tc2 = performance.now();
    await run('query($t: String!) { dataTableRows(tableId: $t, filter: "{\\"cat\\":\\"c3\\"}", sort: "price", pageSize: 50) { totalCount } }', { t: big });
    console.log(`totalCount again, same generation (memoised count): ${(performance.now() - tc2).toFixed(1)} ms`);
    const w = await run('mutation($i: CreateDataTableRowInput!) { createDataTableRow(input: $i) { success } }', { i: { tableId: big, data: cell(3) } });
    if (w.errors) throw new Error(JSON.stringify(w.errors));
    const tc3 = performance.now();
    const after = await run('query($t: String!) { dataTableRows(tableId: $t, filter: "{\\"cat\\":\\"c3\\"}", sort: "price", pageSize: 50) { totalCount } }', {
      t: big,
    });
    const counted = (after.data as { dataTableRows: { totalCount: number } }).dataTableRows.totalCount;
    console.log(`totalCount after a write (carried across it, not recounted): ${(performance.now() - tc3).toFixed(1)} ms = ${counted}`);
    if (counted !== (r.data as { dataTableRows: { totalCount: number } }).dataTableRows.totalCount + 1) throw new Error('the carried count is wrong');
  }

  // 4. export o.rows rows
  {
    const rss = await watchRss({ everyMs: 20 });
    let bytes = 0;
    const t0 = performance.now();
    await pipeline(
      await exportRowsCsv(sg.runtime, who, big),
      new Writable({
        write(chunk, _e, cb) {
          bytes += chunk.length;
          cb();
        },
      }),
    );
    const { idle, peak } = rss.stop();
    console.log(
      `export ${o.rows} rows: ${((performance.now() - t0) / 1000).toFixed(1)} s, ${(bytes / 1e6).toFixed(0)} MB CSV, peak RSS ${((peak - idle) / 1e6).toFixed(0)} MB above idle (${(idle / 1e6).toFixed(0)} MB)`,
    );
  }

  await store.close();
  await rm(dir, { recursive: true, force: true });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await dataTablesScenario({
    rows: Number(process.env.BENCH_ROWS ?? 1_000_000),
    batchCalls: Number(process.env.BENCH_BATCH_CALLS ?? 200),
    importRows: Number(process.env.BENCH_IMPORT_ROWS ?? 100_000),
    pages: Number(process.env.BENCH_PAGES ?? 300),
  });
}
