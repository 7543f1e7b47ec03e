/** What every writer gets: the header facts, the columns, the batches (read once) and the tally. */
import type { Writable } from 'node:stream';
import type { ReportBatch, ReportTally } from '../../domain/reports/report-rows.js';
import type { ReportChart, ReportColumn } from '../../domain/reports/report.js';

export interface ReportDocument {
  title: string;
  /** Label/value lines printed under the title: range, interval, filters. */
  facts: [string, string][];
  generatedAt: Date;
  /** The requested range [from, to) (the chart's time axis). */
  range: { from: Date; to: Date };
  columns: readonly ReportColumn[];
  chart: ReportChart;
  batches: AsyncIterable<ReportBatch>;
  tally: ReportTally;
}

export type ReportWriter = (doc: ReportDocument, out: Writable) => Promise<void>;

/** The summary line that says what the digest covers and how to recompute it. */
export const DIGEST_RULE_LABEL = 'SHA-256 computed over';

/** The lines printed after the rows (CSV trailer, XLSX Summary sheet, PDF summary box), in this order. */
export function summaryLines(doc: ReportDocument): [string, string][] {
  return [
    ['Report', doc.title],
    ...doc.facts,
    ['Rows', String(doc.tally.rows)],
    ...doc.tally.totals().map((t): [string, string] => [`Total ${t.column.title}`, String(t.value)]),
    ...doc.tally.averages().map((t): [string, string] => [`Average ${t.column.title}`, String(t.value)]),
    ['SHA-256 of rows', doc.tally.digest()],
    [DIGEST_RULE_LABEL, doc.tally.digestRule()],
    ['Generated (UTC)', doc.generatedAt.toISOString()],
  ];
}

/** Writes with backpressure: waits for 'drain', and fails (instead of waiting forever) when the client goes away. */
export function write(out: Writable, chunk: string | Uint8Array): Promise<void> | undefined {
  if (out.destroyed || out.writableEnded) return Promise.reject(new Error('the client went away'));
  if (out.write(chunk)) return undefined;
  return drained(out);
}

/** Resolves on 'drain'; rejects when the stream closes or fails first. */
export function drained(out: Writable): Promise<void> {
  if (out.destroyed) return Promise.reject(new Error('the client went away'));
  return new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      out.off('drain', onDrain);
      out.off('close', onClose);
      out.off('error', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new Error('the client went away'));
    out.on('drain', onDrain);
    out.on('close', onClose);
    out.on('error', onClose);
  });
}

/** Ends the stream and waits until everything is flushed (or the client is gone). */
export function finish(out: Writable): Promise<void> {
  if (out.writableFinished) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    out.once('finish', () => resolve());
    out.once('close', () => (out.writableFinished ? resolve() : reject(new Error('the client went away'))));
    out.once('error', reject);
    if (!out.writableEnded) out.end();
  });
}

/**
 * Settles `work` unless `out` closes first (the client went away), which rejects: a writer whose
 * output is piped (exceljs's zip, pdfkit) would otherwise wait forever for a reader that is gone.
 */
export function unlessGone<T>(out: Writable, work: Promise<T>): Promise<T> {
  if (out.destroyed && !out.writableFinished) return Promise.reject(new Error('the client went away'));
  let onClose!: () => void;
  const gone = new Promise<never>((_, reject) => {
    onClose = () => {
      if (!out.writableFinished) reject(new Error('the client went away'));
    };
    out.once('close', onClose);
  });
  return Promise.race([work, gone]).finally(() => out.off('close', onClose));
}
