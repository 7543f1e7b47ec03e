/**
 * What we learn from a stored file: pixel size (images: `sharp`; video: ffprobe), play duration
 * (video, audio: the ffprobe binary shipped by @ffprobe-installer), and a JPEG thumbnail for
 * images. Everything reads the file back from the blob port as a stream. An image is accepted only
 * when a decoder reads its header (width and height known: sharp, else ffprobe for the formats
 * libvips lacks, e.g. BMP) and, where sharp decodes it, its pixels make a thumbnail: magic bytes
 * alone (`FF D8 FF`) or a truncated file are refused with 415 and the decoder's reason. Video and
 * audio the probes cannot read are still kept (their type was proven by their bytes), without figures.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import ffprobe from '@ffprobe-installer/ffprobe';
import type { Metadata } from 'sharp';
import { AppError } from '@pylon/kit';
import type { ContentRuntime } from '../runtime.js';

export interface Probed {
  width: number | null;
  height: number | null;
  duration: number | null;
  thumbKey: string | null;
}

const PROBE_TIMEOUT_MS = 30_000;
const THUMB_PX = 320;

async function open(rt: ContentRuntime, tenant: string, key: string): Promise<Readable> {
  const got = await rt.blobs.get(tenant, key);
  if (!got) throw new Error('stored file vanished');
  return got.body;
}

/** The decoder's reason, short and without paths (libvips messages can name temporary files). */
const reason = (e: unknown) =>
  (e instanceof Error ? e.message : String(e))
    .split('\n')[0]!
    .replace(/\/[^\s:]+/g, '')
    .slice(0, 200);

const undecodable = (why: string) => new AppError('UNSUPPORTED_MEDIA_TYPE', `the image cannot be decoded: ${why}`, { field: 'file' });

/** libvips is loaded on the first image rather than at start (a native library: ~0.1 CPU-s a start need not spend). */
const loadSharp = async () => (await import('sharp')).default;

async function probeImage(rt: ContentRuntime, tenant: string, key: string): Promise<Probed> {
  const sharp = await loadSharp();
  // A read failure of the stored file rejects the probe (never an unhandled 'error' event).
  const input = await open(rt, tenant, key);
  const meta = await new Promise<Metadata>((resolve, reject) => {
    input.once('error', reject);
    input
      .pipe(sharp({ failOn: 'error' }))
      .metadata()
      .then(resolve, reject);
  }).catch((e: unknown) => e as Error);
  if (meta instanceof Error || !meta.width || !meta.height) {
    // Formats libvips does not read (BMP, ICO, ...): ffprobe decodes their header.
    const av = await probeAv(rt, tenant, key).catch(() => null);
    if (av?.width && av.height) return { ...av, duration: null };
    throw undecodable(meta instanceof Error ? reason(meta) : 'no width and height in its header');
  }
  // EXIF orientations 5..8 swap the sides as shown.
  const swap = (meta.orientation ?? 1) >= 5;
  const width = (swap ? meta.height : meta.width) ?? null;
  const height = (swap ? meta.width : meta.height) ?? null;
  const thumbKey = `${randomUUID()}.thumb`;
  const source = await open(rt, tenant, key);
  // failOn 'truncated': a header followed by missing pixels is refused, not thumbnailed half.
  const thumb = source.pipe(
    sharp({ failOn: 'truncated' }).rotate().resize(THUMB_PX, THUMB_PX, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 75 }),
  );
  source.once('error', (e) => thumb.destroy(e));
  try {
    await rt.blobs.put(tenant, thumbKey, thumb, 'image/jpeg');
  } catch (e) {
    await rt.blobs.delete(tenant, thumbKey).catch(() => undefined);
    throw undecodable(`its pixel data is truncated or corrupt (${reason(e)})`);
  }
  return { width, height, duration: null, thumbKey };
}

interface FfprobeOut {
  format?: { duration?: string };
  streams?: { codec_type?: string; width?: number; height?: number; duration?: string }[];
}

/** Runs ffprobe on the file piped to its stdin; resolves with its JSON report. */
function runFfprobe(body: Readable): Promise<FfprobeOut> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffprobe.path, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '-i', 'pipe:0'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.resume();
    // ffprobe stops reading once it knows enough: a broken pipe is expected, not an error.
    child.stdin.on('error', () => undefined);
    body.on('error', () => child.kill('SIGKILL'));
    body.pipe(child.stdin);
    child.on('error', (e) => {
      clearTimeout(timer);
      body.destroy();
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      body.destroy();
      if (code !== 0) return reject(new Error(`ffprobe exited with ${code}`));
      try {
        resolve(JSON.parse(Buffer.concat(out).toString('utf8')) as FfprobeOut);
      } catch (e) {
        reject(e as Error);
      }
    });
  });
}

async function probeAv(rt: ContentRuntime, tenant: string, key: string): Promise<Probed> {
  const r = await runFfprobe(await open(rt, tenant, key));
  const video = r.streams?.find((s) => s.codec_type === 'video');
  const seconds = Number(r.format?.duration ?? video?.duration ?? r.streams?.find((s) => s.duration)?.duration);
  return {
    width: video?.width ?? null,
    height: video?.height ?? null,
    duration: Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) / 1000 : null,
    thumbKey: null,
  };
}

export async function probeMedia(rt: ContentRuntime, tenant: string, key: string, mimeType: string): Promise<Probed> {
  const none: Probed = { width: null, height: null, duration: null, thumbKey: null };
  // Images must decode (415 otherwise); see the top of this file.
  if (mimeType.startsWith('image/')) return await probeImage(rt, tenant, key);
  try {
    if (mimeType.startsWith('video/') || mimeType.startsWith('audio/')) return await probeAv(rt, tenant, key);
  } catch (e) {
    rt.logger?.warn({ err: e, mimeType }, 'media probe failed; stored without size or duration');
  }
  return none;
}
