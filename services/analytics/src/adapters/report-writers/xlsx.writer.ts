/**
 * XLSX through exceljs's streaming WorkbookWriter (rows are committed as they come, never held):
 * a "Report" sheet with typed cells (instants as dates, numbers as numbers), a bold frozen header
 * row and number formats per column type; past Excel's 1,048,576 rows a sheet continues in
 * "Report (2)", ...; then a "Summary" sheet with the facts, rows, totals and the SHA-256 digest.
 */
import type ExcelJS from 'exceljs';
import type { Cell, ColumnType, ReportColumn } from '../../domain/reports/report.js';
import { drained, finish, summaryLines, unlessGone, type ReportWriter } from './document.js';

const NUM_FMT: Record<ColumnType, string | undefined> = {
  text: undefined,
  datetime: 'yyyy-mm-dd hh:mm:ss',
  integer: '#,##0',
  seconds: '#,##0.000',
  percent: '0.00"%"',
};
const SHEET_ROWS = 1_048_575;

function sheet(wb: ExcelJS.stream.xlsx.WorkbookWriter, columns: readonly ReportColumn[], n: number): ExcelJS.Worksheet {
  const ws = wb.addWorksheet(n === 1 ? 'Report' : `Report (${n})`, { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = columns.map((c) => ({
    header: c.title,
    key: c.key,
    width: Math.max(10, c.width + 4),
    ...(NUM_FMT[c.type] ? { style: { numFmt: NUM_FMT[c.type]! } } : {}),
  }));
  ws.getRow(1).font = { bold: true };
  return ws;
}

const typed = (c: ReportColumn, v: Cell): ExcelJS.CellValue => (c.type === 'datetime' && typeof v === 'string' && v ? new Date(v) : v);

export const writeXlsx: ReportWriter = async (doc, out) => {
  // Loaded on first use: exceljs is a tenth of a process start, and most processes never write a workbook.
  const { default: excel } = await import('exceljs');
  const wb = new excel.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const cols = doc.columns;
  let n = 1;
  let ws = sheet(wb, cols, n);
  let inSheet = 0;
  for await (const batch of doc.batches) {
    for (const cells of batch.cells) {
      if (inSheet === SHEET_ROWS) {
        ws.commit();
        ws = sheet(wb, cols, ++n);
        inSheet = 0;
      }
      ws.addRow(cells.map((v, i) => typed(cols[i]!, v))).commit();
      inSheet++;
    }
    // Let the zip drain into the response before the next batch (bounded memory on slow clients).
    if (out.destroyed) throw new Error('the client went away');
    if (out.writableNeedDrain) await drained(out);
  }
  ws.commit();
  const summary = wb.addWorksheet('Summary');
  summary.columns = [
    { header: 'Item', key: 'k', width: 28 },
    { header: 'Value', key: 'v', width: 70 },
  ];
  summary.getRow(1).font = { bold: true };
  for (const [k, v] of summaryLines(doc)) {
    const total = doc.tally.totals().find((t) => `Total ${t.column.title}` === k) ?? doc.tally.averages().find((t) => `Average ${t.column.title}` === k);
    summary.addRow([k, total ? total.value : k === 'Rows' ? Number(v) : v]).commit();
  }
  summary.commit();
  await unlessGone(out, wb.commit());
  await finish(out);
};
