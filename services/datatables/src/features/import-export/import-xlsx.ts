/**
 * .xlsx import. An .xlsx file is a zip archive, so before any XML is parsed the archive is
 * pre-scanned with yauzl (central directory, then every entry inflated into a counter):
 * - at most XLSX_LIMITS.maxEntries entries;
 * - every entry must inflate to exactly its declared size (yauzl's validateEntrySizes) and the
 *   running total of inflated bytes stops at XLSX_LIMITS.maxUncompressedBytes (a zip bomb is
 *   refused after reading at most that many bytes, whatever its headers claim);
 * - no entry may declare more than XLSX_LIMITS.maxRatio times its compressed size (above 1 MB);
 * - the local entries must tile the file up to the central directory (no bytes hidden between
 *   entries, which a streaming reader that follows local headers, like exceljs's, would see).
 * Only then is the first worksheet streamed with exceljs's WorkbookReader (shared strings cached,
 * styles ignored), rows going to importRecords in chunks; the row cap applies as for CSV.
 * Never the npm `xlsx` package (SECURITY.md).
 */
import type ExcelJS from 'exceljs';
import yauzl from 'yauzl';
import { AppError, type Principal } from '@pylon/kit';
import type { DataTablesRuntime } from '../../runtime.js';
import { importRecords, type ImportOptions, type ImportResult } from './import-rows.js';

export const XLSX_LIMITS = { maxEntries: 64, maxUncompressedBytes: 200 * 1024 * 1024, maxRatio: 200, ratioFloorBytes: 1024 * 1024 } as const;

const refuse = (message: string) => new AppError('BAD_USER_INPUT', message, { field: 'file' });
const tooLarge = (message: string) => new AppError('PAYLOAD_TOO_LARGE', message, { field: 'file' });

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false }, (err, zip) =>
      err || !zip ? reject(refuse(`the file is not a valid .xlsx (zip) archive: ${err?.message ?? 'unreadable'}`)) : resolve(zip),
    ),
  );
}

/** Refuses archives that are bombs, lie about sizes, or hide data; resolves when the file is safe to stream. */
export async function prescanXlsx(path: string): Promise<void> {
  const zip = await openZip(path);
  try {
    const entries: yauzl.Entry[] = [];
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (e: yauzl.Entry) => {
        if (entries.length >= XLSX_LIMITS.maxEntries) return reject(tooLarge(`the .xlsx archive has more than ${XLSX_LIMITS.maxEntries} entries`));
        entries.push(e);
        zip.readEntry();
      });
      zip.on('end', () => resolve());
      zip.on('error', (e: Error) => reject(refuse(`the .xlsx archive is malformed: ${e.message}`)));
      zip.readEntry();
    });
    let declared = 0;
    for (const e of entries) {
      declared += e.uncompressedSize;
      if (declared > XLSX_LIMITS.maxUncompressedBytes) throw tooLarge(`the .xlsx archive expands to more than ${XLSX_LIMITS.maxUncompressedBytes} bytes`);
      if (e.uncompressedSize > XLSX_LIMITS.ratioFloorBytes && e.uncompressedSize > e.compressedSize * XLSX_LIMITS.maxRatio) {
        throw tooLarge(
          `the .xlsx entry '${e.fileName.slice(0, 100)}' expands ${Math.round(e.uncompressedSize / Math.max(1, e.compressedSize))} times (at most ${XLSX_LIMITS.maxRatio})`,
        );
      }
    }
    // Inflate everything into a counter: the declared sizes are checked against the bytes themselves.
    let actual = 0;
    const spans: Array<[number, number]> = [];
    for (const e of entries) {
      const start = await new Promise<number>((resolve, reject) =>
        zip.readLocalFileHeader(e, { minimal: true }, (err, h) =>
          err ? reject(refuse(`the .xlsx entry '${e.fileName.slice(0, 100)}' is malformed: ${err.message}`)) : resolve(h.fileDataStart),
        ),
      );
      spans.push([e.relativeOffsetOfLocalHeader, start + e.compressedSize + ((e.generalPurposeBitFlag & 8) !== 0 ? 16 : 0)]);
      await new Promise<void>((resolve, reject) => {
        zip.openReadStream(e, (err, stream) => {
          if (err || !stream) return reject(refuse(`the .xlsx entry '${e.fileName.slice(0, 100)}' cannot be read: ${err?.message ?? 'unreadable'}`));
          stream.on('data', (chunk: Buffer) => {
            actual += chunk.length;
            if (actual > XLSX_LIMITS.maxUncompressedBytes)
              stream.destroy(tooLarge(`the .xlsx archive expands to more than ${XLSX_LIMITS.maxUncompressedBytes} bytes`));
          });
          stream.on('error', (e2: Error) =>
            reject(
              e2 instanceof AppError
                ? e2
                : refuse(`the .xlsx entry '${e.fileName.slice(0, 100)}' does not match its declared size or is corrupt: ${e2.message}`),
            ),
          );
          stream.on('end', () => resolve());
        });
      });
    }
    spans.sort((a, b) => a[0] - b[0]);
    if (spans.length > 0 && spans[0]![0] !== 0) throw refuse('the .xlsx archive has data before its first entry');
    for (let i = 1; i < spans.length; i++) {
      const gap = spans[i]![0] - spans[i - 1]![1];
      // A data descriptor may be 12 or 16 bytes (with or without its signature): allow that slack only.
      if (gap < -4 || gap > 8) throw refuse('the .xlsx archive has overlapping entries or bytes hidden between them');
    }
  } finally {
    zip.close();
  }
}

/** An exceljs cell value as a plain cell value (text, number, boolean, ISO date) or null. */
function plain(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  if (Array.isArray(o.richText)) return (o.richText as Array<{ text?: string }>).map((t) => t.text ?? '').join('');
  if ('result' in o) return plain(o.result);
  if ('text' in o) return plain(o.text);
  if ('error' in o) return null;
  return null;
}

/** Imports the first worksheet of an .xlsx file already on disk (pre-scanned here first). */
export async function importRowsXlsx(
  rt: DataTablesRuntime,
  principal: Principal,
  tableId: string,
  path: string,
  options: ImportOptions & { prescanned?: boolean } = {},
): Promise<ImportResult> {
  if (!options.prescanned) await prescanXlsx(path);
  // Loaded on first use: exceljs is a tenth of a process start, and most processes never read a workbook.
  const { default: excel } = await import('exceljs');
  const reader = new excel.stream.xlsx.WorkbookReader(path, {
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    worksheets: 'emit',
    entries: 'emit',
  });
  async function* records(): AsyncGenerator<{ line: number; cells: unknown[] }> {
    try {
      for await (const sheet of reader) {
        for await (const row of sheet as AsyncIterable<ExcelJS.Row>) {
          const values = Array.isArray(row.values) ? row.values.slice(1) : [];
          yield { line: row.number, cells: Array.from(values, plain) };
        }
        return; // the first worksheet only
      }
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw refuse(`the .xlsx file cannot be read: ${(e as Error).message.slice(0, 200)}`);
    }
  }
  return importRecords(rt, principal, tableId, records(), options);
}
