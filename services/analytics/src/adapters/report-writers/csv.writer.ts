/**
 * CSV: RFC 4180, UTF-8, CRLF. The header row (column titles), one line per row (text cells
 * formula-escaped, numbers and instants as they are), then an empty line and the summary as
 * label,value lines: rows, totals, the SHA-256 of the row lines, when it was generated. A reader
 * that wants only the table stops at the first empty line.
 */
import { csvLine, escapeFormula } from '../../domain/reports/report-rows.js';
import { finish, summaryLines, write, type ReportWriter } from './document.js';

export const writeCsv: ReportWriter = async (doc, out) => {
  await write(out, csvLine(doc.columns.map((c) => escapeFormula(c.title))));
  for await (const batch of doc.batches) await write(out, batch.text);
  await write(
    out,
    '\r\n' +
      summaryLines(doc)
        .map(([k, v]) => csvLine([escapeFormula(k), escapeFormula(v)]))
        .join(''),
  );
  await finish(out);
};
