/**
 * What we learn from a stored file: pixel size (images: `sharp`; video: ffprobe), play duration
 * (video, audio: the ffprobe binary shipped by @ffprobe-installer), and a JPEG thumbnail for
 * images. Everything reads the file back from the blob port as a stream. A file the probes
 * cannot read is still kept (its type was already proven by its bytes), without the figures.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import ffprobe from '@ffprobe-installer/ffprobe';
import sharp, { type Metadata } from 'sharp';
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

async function probeImage(rt: ContentRuntime, tenant: string, key: string): Promise<Probed> {
  // A read failure of the stored file rejects the probe (never an unhandled 'error' event).
  const input = await open(rt, tenant, key);
  const meta = await new Promise<Metadata>((resolve, reject) => {
    input.once('error', reject);
    input
      .pipe(sharp({ failOn: 'error' }))
      .metadata()
      .then(resolve, reject);
  });
  // EXIF orientations 5..8 swap the sides as shown.
  const swap = (meta.orientation ?? 1) >= 5;
  const width = (swap ? meta.height : meta.width) ?? null;
  const height = (swap ? meta.width : meta.height) ?? null;
  const thumbKey = `${randomUUID()}.thumb`;
  const source = await open(rt, tenant, key);
  const thumb = source.pipe(sharp().rotate().resize(THUMB_PX, THUMB_PX, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 75 }));
  source.once('error', (e) => thumb.destroy(e));
  await rt.blobs.put(tenant, thumbKey, thumb, 'image/jpeg');
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
  try {
    if (mimeType.startsWith('image/')) return await probeImage(rt, tenant, key);
    if (mimeType.startsWith('video/') || mimeType.startsWith('audio/')) return await probeAv(rt, tenant, key);
  } catch (e) {
    rt.logger?.warn({ err: e, mimeType }, 'media probe failed; stored without size or duration');
  }
  return none;
}
