/**
 * Whole-file JPEG structure check for screenshots: the first bytes alone prove nothing (a JPEG
 * header followed by HTML would be stored and later served as an "image"). Walks every segment
 * from SOI to EOI, as a decoder would, without decoding pixels:
 *
 *   SOI (FFD8) · segments (FFxx + 16-bit length, which counts itself) · at least one frame header
 *   (SOF) before the first scan · scans (SOS header, then entropy-coded bytes in which FF is only
 *   followed by 00 stuffing or an RSTn) · EOI (FFD9) as the very last two bytes.
 */

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
/** SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC). */
const isFrameHeader = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
const isRestart = (m: number) => m >= 0xd0 && m <= 0xd7;

/** True when `b` is one complete baseline/progressive JPEG file and nothing else. */
export function isWholeJpeg(b: Buffer): boolean {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== SOI) return false;
  let pos = 2;
  let frame = false;
  let scans = 0;
  while (pos < b.length) {
    if (b[pos] !== 0xff) return false;
    while (pos < b.length && b[pos] === 0xff) pos++; // fill bytes before a marker are allowed
    if (pos >= b.length) return false;
    const marker = b[pos++]!;
    if (marker === EOI) return frame && scans > 0 && pos === b.length;
    if (marker === SOI || marker === 0x00 || isRestart(marker) || marker === 0x01) return false; // not valid between segments
    if (pos + 2 > b.length) return false;
    const length = b.readUInt16BE(pos);
    if (length < 2 || pos + length > b.length) return false;
    pos += length;
    if (isFrameHeader(marker)) frame = true;
    if (marker === SOS) {
      if (!frame) return false;
      scans++;
      // Entropy-coded data runs to the next marker that is neither stuffing (FF00) nor a restart.
      for (;;) {
        if (pos + 1 >= b.length) return false;
        if (b[pos] === 0xff && b[pos + 1] !== 0x00 && b[pos + 1] !== 0xff && !isRestart(b[pos + 1]!)) break;
        pos++;
      }
    }
  }
  return false;
}
