/**
 * PDF through pdfkit (server-side, no browser): A4 landscape; the first page carries the title,
 * the facts, the summary (rows, totals, SHA-256 of all rows) and a bar chart drawn as vector
 * graphics; then the table, its header repeated on every page. A PDF is for people: it lists the
 * first PDF_MAX_ROWS rows and says so, while the counts, totals and digest cover every row (the
 * CSV or XLSX export carries them all). Rows are read once and kept only up to that limit.
 */
import type { ReportColumn } from '../../domain/reports/report.js';
import { finish, summaryLines, unlessGone, type ReportWriter } from './document.js';

export const PDF_MAX_ROWS = 2000;
/** The chart's bar colour (tests look for it in the rendered page). */
export const CHART_BAR_COLOR = '#2f6fdf';
const MAX_BARS = 60;

const MARGIN = 36;
const ROW_H = 14;

function display(col: ReportColumn, text: string): string {
  if (col.type === 'datetime') return text.replace('T', ' ').replace(/(\.000)?Z$/, '');
  return text;
}

/** Merges adjacent points so at most MAX_BARS bars are drawn (sums, or means for averages). */
function bars(points: { label: string; value: number }[], avg: boolean): { label: string; value: number }[] {
  if (points.length <= MAX_BARS) return points;
  const per = Math.ceil(points.length / MAX_BARS);
  const out: { label: string; value: number }[] = [];
  for (let i = 0; i < points.length; i += per) {
    const group = points.slice(i, i + per);
    const sum = group.reduce((s, p) => s + p.value, 0);
    out.push({ label: group[0]!.label, value: avg ? sum / group.length : sum });
  }
  return out;
}

function drawChart(
  pdf: PDFKit.PDFDocument,
  title: string,
  points: { label: string; value: number }[],
  x: number,
  y: number,
  w: number,
  h: number,
  ceiling?: number,
) {
  pdf.font('Helvetica-Bold').fontSize(11).fillColor('#000000').text(title, x, y);
  const top = y + 20;
  const left = x + 50;
  const bottom = top + h - 30;
  const width = w - 60;
  const max = ceiling ?? Math.max(1, ...points.map((p) => p.value));
  pdf
    .lineWidth(0.5)
    .strokeColor('#888888')
    .moveTo(left, top)
    .lineTo(left, bottom)
    .lineTo(left + width, bottom)
    .stroke();
  pdf.font('Helvetica').fontSize(7).fillColor('#444444');
  pdf.text(String(Math.round(max * 100) / 100), x, top - 3, { width: 45, align: 'right' });
  pdf.text('0', x, bottom - 4, { width: 45, align: 'right' });
  if (points.length === 0) {
    pdf.text('No data in the range.', left + 10, top + 10);
    return;
  }
  const slot = width / points.length;
  const barW = Math.max(1, slot * 0.7);
  const every = Math.ceil(points.length / 12);
  points.forEach((p, i) => {
    const bh = (p.value / max) * (bottom - top);
    const bx = left + i * slot + (slot - barW) / 2;
    if (bh > 0) pdf.rect(bx, bottom - bh, barW, bh).fill(CHART_BAR_COLOR);
    if (i % every === 0) pdf.fillColor('#444444').text(p.label, left + i * slot - 10, bottom + 4, { width: slot * every, lineBreak: false });
  });
}

export const writePdf: ReportWriter = async (doc, out) => {
  // Loaded on first use (pdfkit and its font engine): most processes never write a PDF.
  const { default: PDFDocument } = await import('pdfkit');
  const pdf = new PDFDocument({ size: 'A4', layout: 'landscape', margin: MARGIN, info: { Title: doc.title, Producer: 'Pylon' } });
  pdf.pipe(out);
  const pageW = pdf.page.width - 2 * MARGIN;
  const kept: string[][] = [];
  const cols = doc.columns;
  for await (const batch of doc.batches) {
    for (const line of batch.cells) {
      if (kept.length >= PDF_MAX_ROWS) break;
      kept.push(line.map((v, i) => display(cols[i]!, String(v))));
    }
  }
  // Page 1: title, facts and summary, chart.
  pdf.font('Helvetica-Bold').fontSize(18).fillColor('#000000').text(doc.title, MARGIN, MARGIN);
  pdf.moveDown(0.5);
  let y = pdf.y;
  pdf.fontSize(9);
  for (const [k, v] of summaryLines(doc).slice(1)) {
    pdf.font('Helvetica-Bold').fillColor('#000000').text(k, MARGIN, y, { width: 150 });
    pdf.font(k === 'SHA-256 of rows' ? 'Courier' : 'Helvetica').text(v, MARGIN + 155, y, { width: pageW - 155 });
    y = Math.max(pdf.y, y + 12);
  }
  if (doc.tally.rows > kept.length)
    pdf
      .font('Helvetica-Oblique')
      .text(
        `The table lists the first ${kept.length} of ${doc.tally.rows} rows; counts, totals and the digest cover all rows (export CSV or EXCEL for every row).`,
        MARGIN,
        y + 4,
        { width: pageW },
      );
  const chartTop = Math.max(pdf.y + 16, y + 16);
  drawChart(
    pdf,
    doc.chart.title,
    bars(doc.tally.chartPoints(doc.range.from, doc.range.to), doc.chart.aggregate === 'avg'),
    MARGIN,
    chartTop,
    pageW,
    pdf.page.height - MARGIN - chartTop - 10,
  );

  // The table, from page 2.
  const totalW = cols.reduce((s, c) => s + c.width, 0);
  const widths = cols.map((c) => (c.width / totalW) * pageW);
  const bottomY = pdf.page.height - MARGIN - ROW_H;
  const header = () => {
    pdf.addPage();
    let x = MARGIN;
    pdf.rect(MARGIN, MARGIN, pageW, ROW_H).fill('#e4e8f0');
    pdf.font('Helvetica-Bold').fontSize(7.5).fillColor('#000000');
    cols.forEach((c, i) => {
      pdf.text(c.title, x + 2, MARGIN + 3.5, { width: widths[i]! - 4, height: ROW_H, lineBreak: false, ellipsis: true });
      x += widths[i]!;
    });
    pdf.font('Helvetica');
    return MARGIN + ROW_H;
  };
  y = header();
  for (const row of kept) {
    if (y > bottomY) y = header();
    let x = MARGIN;
    row.forEach((t, i) => {
      const numeric = cols[i]!.type !== 'text' && cols[i]!.type !== 'datetime';
      pdf.text(t, x + 2, y + 3.5, { width: widths[i]! - 4, height: ROW_H, lineBreak: false, ellipsis: true, align: numeric ? 'right' : 'left' });
      x += widths[i]!;
    });
    pdf
      .lineWidth(0.25)
      .strokeColor('#dddddd')
      .moveTo(MARGIN, y + ROW_H)
      .lineTo(MARGIN + pageW, y + ROW_H)
      .stroke();
    y += ROW_H;
  }
  if (kept.length === 0) pdf.text('No rows in the range.', MARGIN, y + 4);
  // pipe() ends `out` once pdfkit has pushed its last bytes; wait for that, then for the flush.
  const ended = new Promise<void>((resolve) => pdf.once('end', () => resolve()));
  pdf.end();
  await unlessGone(out, ended);
  await finish(out);
};
