/**
 * The admin CLI's error paths (services/identity/src/admin.cli.ts) as an operator meets them: the
 * real entry as a process on a temp data dir. Usage mistakes exit 2 with the problem and the usage,
 * refused input exits 1 with the error code and field, bad settings exit 1 naming the setting; no
 * stack trace and never the password or key given.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryCommand, runToEnd } from '@pylon/kit/testing';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pylon-admin-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

/** The CLI compiled (plain node, as the image runs it) when `npm run build` is current, else through tsx. */
const [cli, cliArgs] = entryCommand('services/identity/src/admin.cli.ts');

/** One CLI run; a busy 2-core machine may take several seconds to start it. */
const admin = (args: string[], env: Record<string, string> = {}) =>
  runToEnd(
    cli,
    [...cliArgs, ...args],
    {
      ...process.env,
      SIGNAGE_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      ...env,
    },
    root,
  );

const noTrace = (text: string) => expect(text).not.toMatch(/\n\s+at /);
const T = 120_000;

test(
  'usage mistakes: no command, an unknown option, an unknown command, a missing required option; exit 2 with the usage',
  async () => {
    const none = await admin([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toMatch(/^usage: npm run admin -- <command>/);
    const help = await admin(['--help']);
    expect(help.code).toBe(0);
    const [unknownOption, unknownCommand, missing, noRole] = await Promise.all([
      admin(['list-users', '--acount', 'x']),
      admin(['frobnicate']),
      admin(['create-account']),
      admin(['create-user', '--account', 'acme', '--username', 'ops@acme.example']),
    ]);
    expect(unknownOption).toMatchObject({ code: 2, stderr: expect.stringMatching(/^Unknown option '--acount'\n\nusage:/) });
    expect(unknownCommand).toMatchObject({ code: 2, stderr: expect.stringMatching(/^unknown command 'frobnicate'\n\nusage:/) });
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringMatching(/^--name is required for create-account\n/) });
    expect(noRole).toMatchObject({ code: 2, stderr: expect.stringMatching(/^--role is required/) });
    for (const r of [unknownOption, unknownCommand, missing, noRole]) noTrace(r.stderr);
  },
  T,
);

test(
  'bad settings exit 1 naming the setting, before any data is touched',
  async () => {
    const r = await admin(['list-users', '--account', 'acme'], { DOCUMENTS_DRIVER: 'mongo', MONGO_URL: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/MONGO_URL/);
    noTrace(r.stderr);
  },
  T,
);

test(
  'refused input exits 1 with the code and field; unknown users and keys are named; secrets never echoed',
  async () => {
    expect((await admin(['create-account', '--name', 'Acme', '--id', 'acme'])).code).toBe(0);
    const again = await admin(['create-account', '--name', 'Acme again', '--id', 'acme']);
    expect(again).toMatchObject({ code: 1, stderr: "error (DUPLICATE_KEY, id): account 'acme' exists already\n" });
    const badRole = await admin(['create-user', '--account', 'acme', '--username', 'ops@acme.example', '--role', 'Wizard']);
    expect(badRole.code).toBe(1);
    expect(badRole.stderr).toMatch(/^error \(BAD_USER_INPUT, roles/);
    const secret = 'correct horse battery staple';
    const ghost = await admin(['set-password', '--account', 'acme', '--user', 'ghost@acme.example', '--password', secret]);
    expect(ghost).toMatchObject({ code: 2, stderr: expect.stringMatching(/^account 'acme' has no user 'ghost@acme.example'/) });
    expect(ghost.stderr + ghost.stdout).not.toContain(secret);
    const [otherAccount, revoke, shortPassword] = await Promise.all([
      admin(['create-key', '--account', 'nobody', '--user', 'owner@demo.example']),
      admin(['revoke-key', '--account', 'acme', '--key', 'no-such-key']),
      (async () => {
        expect((await admin(['create-user', '--account', 'acme', '--username', 'ops@acme.example', '--role', 'Editor'])).code).toBe(0);
        return admin(['set-password', '--account', 'acme', '--user', 'ops@acme.example', '--password', 'short']);
      })(),
    ]);
    expect(otherAccount).toMatchObject({ code: 2, stderr: expect.stringMatching(/^account 'nobody' has no user 'owner@demo.example'/) });
    expect(revoke).toMatchObject({ code: 1, stderr: "error (NOT_FOUND): API key 'no-such-key' was not found\n" });
    expect(shortPassword.code).toBe(1);
    expect(shortPassword.stderr).toMatch(/^error \(BAD_USER_INPUT, password\)/);
    expect(shortPassword.stderr).not.toContain('short\n');
    for (const r of [again, badRole, ghost, otherAccount, revoke, shortPassword]) noTrace(r.stderr);
  },
  T,
);
