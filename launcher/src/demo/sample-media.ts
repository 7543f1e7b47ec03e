/**
 * Media files made on the spot, for the demo account and tests: PNG images drawn with sharp and a
 * short Motion-JPEG AVI (the simplest real video container ffprobe reads; no encoder needed).
 */

/** libvips is loaded when a sample is first drawn (a fresh demo), not by every start that imports the demo. */
const loadSharp = async () => (await import('sharp')).default;

/**
 * A PNG: a colour field with a lighter band whose position depends on `seed`, so different seeds
 * give different bytes. No text: rendering text loads fonts, which costs seconds at startup.
 */
export async function samplePng(width: number, height: number, color: string, seed = ''): Promise<Buffer> {
  const sharp = await loadSharp();
  const y = [...seed].reduce((n, c) => n + c.charCodeAt(0), 0) % Math.max(1, height - Math.ceil(height / 5));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${color}"/><rect y="${y}" width="100%" height="${Math.ceil(height / 5)}" fill="white" fill-opacity="0.3"/></svg>`;
  return sharp(Buffer.from(svg)).png({ compressionLevel: 3 }).toBuffer();
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};
const cc = (s: string) => Buffer.from(s, 'latin1');
const chunk = (id: string, data: Buffer) => Buffer.concat([cc(id), u32(data.length), data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
const list = (type: string, parts: Buffer[]) => {
  const body = Buffer.concat([cc(type), ...parts]);
  return Buffer.concat([cc('LIST'), u32(body.length), body]);
};

/** A Motion-JPEG AVI of `seconds` at `fps`, frames fading between two colours. */
export async function sampleAvi(width: number, height: number, seconds: number, fps = 5): Promise<Buffer> {
  const sharp = await loadSharp();
  const frames: Buffer[] = [];
  const total = Math.max(1, Math.round(seconds * fps));
  for (let i = 0; i < total; i++) {
    const shade = Math.round((255 * i) / Math.max(1, total - 1));
    frames.push(
      await sharp({ create: { width, height, channels: 3, background: { r: shade, g: 64, b: 255 - shade } } })
        .jpeg({ quality: 60 })
        .toBuffer(),
    );
  }
  const avih = Buffer.concat([
    u32(Math.round(1_000_000 / fps)),
    u32(0),
    u32(0),
    u32(0x10),
    u32(total),
    u32(0),
    u32(1),
    u32(0),
    u32(width),
    u32(height),
    Buffer.alloc(16),
  ]);
  const strh = Buffer.concat([
    cc('vids'),
    cc('MJPG'),
    u32(0),
    u16(0),
    u16(0),
    u32(0),
    u32(1),
    u32(fps),
    u32(0),
    u32(total),
    u32(0),
    u32(0xffffffff),
    u32(0),
    u16(0),
    u16(0),
    u16(width),
    u16(height),
  ]);
  const strf = Buffer.concat([u32(40), u32(width), u32(height), u16(1), u16(24), cc('MJPG'), u32(width * height * 3), u32(0), u32(0), u32(0), u32(0)]);
  const hdrl = list('hdrl', [chunk('avih', avih), list('strl', [chunk('strh', strh), chunk('strf', strf)])]);
  const frameChunks = frames.map((f) => chunk('00dc', f));
  const movi = list('movi', frameChunks);
  let offset = 4;
  const index = frameChunks.map((c, i) => {
    const entry = Buffer.concat([cc('00dc'), u32(0x10), u32(offset), u32(frames[i]!.length)]);
    offset += c.length;
    return entry;
  });
  const body = Buffer.concat([cc('AVI '), hdrl, movi, chunk('idx1', Buffer.concat(index))]);
  return Buffer.concat([cc('RIFF'), u32(body.length), body]);
}
