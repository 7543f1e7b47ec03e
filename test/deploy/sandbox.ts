/**
 * A process run the way the image runs it, without a container engine: bubblewrap (Debian's
 * `bwrap`) builds a root from the host's /usr and /etc and the repository at the image's WORKDIR,
 * read-only (`--remount-ro /`), with only the given paths writable (a directory bound in, or a
 * tmpfs), as the image's user inside a user namespace. When the tests run as root, bwrap itself
 * runs as uid 65534, so the process is not the owner of anything outside its writable paths.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './deploy.helpers.js';

/** Debian's merged /usr: /bin, /lib, ... are links into it. */
const USR_LINKS = ['bin', 'lib', 'lib64', 'sbin'].flatMap((d) => ['--symlink', `usr/${d}`, `/${d}`]);

/** The host user bwrap runs as: 65534 when the tests run as root (so the process owns nothing outside its volumes). */
export const SANDBOX_HOST_USER = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

/** Whether bubblewrap is installed and may create a user namespace here, as the user the tests run it as. */
export const bwrapWorks = (): boolean =>
  spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/usr', '/usr', ...USR_LINKS, '--', '/bin/true'], { stdio: 'ignore', ...SANDBOX_HOST_USER }).status === 0;

/** What the runtime stage of the Dockerfile says about the process: its ENV, WORKDIR, VOLUMEs, USER, ENTRYPOINT. */
export function imageFacts() {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').split('\n');
  const runtime = lines.slice(lines.findLastIndex((l) => l.startsWith('FROM ')));
  const arg = (keyword: string) => runtime.filter((l) => l.startsWith(`${keyword} `)).map((l) => l.slice(keyword.length + 1).trim());
  const env = Object.fromEntries(arg('ENV').flatMap((l) => l.split(/\s+/).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])));
  const [uid, gid] = arg('USER').at(-1)!.split(':').map(Number);
  return {
    env: env as Record<string, string>,
    workdir: arg('WORKDIR').at(-1)!,
    volumes: arg('VOLUME').flatMap((v) => JSON.parse(v) as string[]),
    uid: uid!,
    gid: gid ?? uid!,
    entrypoint: JSON.parse(arg('ENTRYPOINT').at(-1)!) as string[],
  };
}

export interface Sandbox {
  uid: number;
  gid: number;
  /** The repository is bound read-only here, and the process starts in it. */
  workdir: string;
  /** Writable paths inside: a host directory bound there, or 'tmpfs'. */
  writable: Record<string, string>;
}

/** bwrap's arguments to run `argv` (argv[0] an absolute path to node) in the sandbox. */
export function sandboxArgs(s: Sandbox, argv: string[]): string[] {
  const node = argv[0]!;
  return [
    '--unshare-user',
    '--uid',
    String(s.uid),
    '--gid',
    String(s.gid),
    '--die-with-parent',
    '--ro-bind',
    '/usr',
    '/usr',
    ...USR_LINKS,
    '--ro-bind',
    '/etc',
    '/etc',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    // As a container sees it (read-only): chDB reads its memory limit from the cgroup files.
    '--ro-bind',
    '/sys',
    '/sys',
    // A Node.js fetched for the image's version (PYLON_IMAGE_NODE) lives outside /usr.
    ...(node.startsWith('/usr/') ? [] : ['--ro-bind', dirname(node), dirname(node)]),
    '--ro-bind',
    ROOT,
    s.workdir,
    ...Object.entries(s.writable).flatMap(([inside, outside]) => (outside === 'tmpfs' ? ['--tmpfs', inside] : ['--bind', outside, inside])),
    '--remount-ro',
    '/',
    '--chdir',
    s.workdir,
    '--',
    ...argv,
  ];
}
