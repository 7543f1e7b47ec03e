/**
 * `npm run admin -- <command>`: account administration on the same data as the server (SIGNAGE_DATA_DIR
 * and the *_DRIVER settings), safe while the server runs: LMDB is multi-process, and key
 * revocations reach a running server through revocation events within REVOCATION_POLL_MS.
 *
 *   create-account --name "Acme" [--id acme] [--timezone Europe/Amsterdam]
 *   create-org     --account acme --name "Acme Benelux" [--timezone ...] [--language nl-NL]
 *   create-user    --account acme --username ops@acme.example --role Editor --role API
 *                  [--email ...] [--first-name ...] [--last-name ...] [--org <orgId>] [--password ...]
 *   set-password   --account acme --user ops@acme.example --password '...'
 *   create-key     --account acme --user ops@acme.example [--name ci] [--expires 2030-01-01T00:00:00Z]
 *   revoke-key     --account acme --key <keyId>
 *   list-keys      --account acme [--user <id or username>] [--all]
 *   list-users     --account acme
 *   reset-key      [--account demo-account] [--user owner@demo.example]   a new key (the demo owner's by default)
 *   reset-password [--account demo-account] [--user owner@demo.example]   a new sign-in password
 * Add --json for machine-readable output.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { isAppError, loadConfigOrExit } from '@pylon/kit';
import { backendEnv, backendRules, createBackends } from '@pylon/composition/backends';
import { IdentityRepository, type User } from './shared/identity.repository.js';
import { createAccount, createUser, setPassword } from './features/accounts/accounts.js';
import { createApiKey, listApiKeys, revokeApiKey } from './features/api-keys/api-keys.js';
import { createOrganization } from './features/accounts/organizations.js';

const USAGE = `usage: npm run admin -- <command> [options]
  create-account --name <name> [--id <id>] [--timezone <IANA zone>]
  create-org     --account <id> --name <name> [--timezone <zone>] [--language <tag>]
  create-user    --account <id> --username <name> --role <role> [--role API] [--email <e>]
                 [--first-name <n>] [--last-name <n>] [--org <orgId>] [--password <p>]
  set-password   --account <id> --user <id|username> --password <p>
  create-key     --account <id> --user <id|username> [--name <label>] [--expires <ISO 8601>]
  revoke-key     --account <id> --key <keyId>
  list-keys      --account <id> [--user <id|username>] [--all]
  list-users     --account <id>
  reset-key      [--account <id>] [--user <id|username>]   a new API key (default: the demo owner)
  reset-password [--account <id>] [--user <id|username>]   a new sign-in password (default: the demo owner)
options: --json (machine-readable output); settings: SIGNAGE_DATA_DIR, DOCUMENTS_DRIVER, CACHE_DRIVER, ...`;

const ARGS = {
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    id: { type: 'string' },
    timezone: { type: 'string' },
    language: { type: 'string' },
    account: { type: 'string' },
    username: { type: 'string' },
    user: { type: 'string' },
    role: { type: 'string', multiple: true },
    email: { type: 'string' },
    'first-name': { type: 'string' },
    'last-name': { type: 'string' },
    org: { type: 'string' },
    password: { type: 'string' },
    key: { type: 'string' },
    expires: { type: 'string' },
    all: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
} as const;
const { values: o, positionals } = parseArgsOrExit();

/** Unknown or malformed options: the problem and the usage, exit 2 (no stack trace). */
function parseArgsOrExit(): ReturnType<typeof parseArgs<typeof ARGS>> {
  try {
    return parseArgs(ARGS);
  } catch (e) {
    process.stderr.write(`${(e as Error).message.split('.')[0]}\n\n${USAGE}\n`);
    process.exit(2);
  }
}

const command = positionals[0];
if (o.help || !command) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(o.help ? 0 : 2);
}

const out = (human: string, data: unknown) => process.stdout.write(o.json ? `${JSON.stringify(data)}\n` : `${human}\n`);
const need = (name: keyof typeof o): string => {
  const v = o[name];
  if (typeof v !== 'string' || !v) throw new UsageError(`--${name} is required for ${command}`);
  return v;
};
class UsageError extends Error {}
/** The account and owner `npm start` seeds (launcher/src/demo/seed-demo.ts). */
const DEMO_ACCOUNT = 'demo-account';
const DEMO_OWNER = 'owner@demo.example';

const env = loadConfigOrExit(backendEnv.check(...backendRules));
const backends = await createBackends(env, ['documents', 'cache'], 'pylon-admin');
const repo = new IdentityRepository(backends.documents!);

async function findUser(accountId: string, ref: string): Promise<User> {
  const byId = await repo.findUser(accountId, ref);
  if (byId) return byId;
  const byName = await repo.findUserByUsername(ref);
  if (byName && byName.accountId === accountId) return byName;
  throw new UsageError(`account '${accountId}' has no user '${ref}' (give a user id or username)`);
}

const roles = () =>
  (o.role ?? [])
    .flatMap((r) => r.split(','))
    .map((r) => r.trim())
    .filter(Boolean);

try {
  switch (command) {
    case 'create-account': {
      const a = await createAccount(repo, { name: need('name'), ...(o.id ? { id: o.id } : {}), ...(o.timezone ? { timezone: o.timezone } : {}) });
      out(`created account ${a.id} (${a.name}, ${a.timezone})`, { id: a.id, name: a.name, timezone: a.timezone });
      break;
    }
    case 'create-org': {
      const org = await createOrganization(repo, need('account'), { name: need('name'), timezone: o.timezone ?? null, languageCode: o.language ?? null });
      out(`created organization ${org.id} (${org.name})`, { id: org.id, name: org.name });
      break;
    }
    case 'create-user': {
      if (!roles().length) throw new UsageError('--role is required (Owner, Administrator, Manager, Editor, Viewer; add --role API for API keys)');
      const u = await createUser(repo, {
        accountId: need('account'),
        username: need('username'),
        roles: roles(),
        email: o.email ?? null,
        firstName: o['first-name'] ?? null,
        lastName: o['last-name'] ?? null,
        orgId: o.org ?? null,
        password: o.password ?? null,
      });
      out(`created user ${u.id} (${u.username}; roles ${u.roles.join(', ')})`, { id: u.id, username: u.username, roles: u.roles });
      break;
    }
    case 'set-password': {
      const accountId = need('account');
      const u = await findUser(accountId, need('user'));
      await setPassword(repo, accountId, u.id, need('password'));
      out(`password set for ${u.username}`, { id: u.id });
      break;
    }
    case 'create-key': {
      const accountId = need('account');
      const u = await findUser(accountId, need('user'));
      const { key, value } = await createApiKey(repo, { accountId, userId: u.id, name: o.name ?? 'cli', expiresAt: o.expires ?? null });
      const warning = u.roles.includes('API') ? '' : `\nwarning: ${u.username} does not hold the API role, so this key is refused until they do`;
      out(
        `created API key ${key.id} for ${u.username}${key.expiresAt ? `, expires ${key.expiresAt}` : ''}\nkey (shown once, store it now): ${value}${warning}`,
        { id: key.id, userId: u.id, prefix: key.prefix, expiresAt: key.expiresAt, key: value },
      );
      break;
    }
    case 'reset-key': {
      // The demo owner by default: the key npm start printed once is lost, this prints a new one.
      const accountId = o.account ?? DEMO_ACCOUNT;
      const u = await findUser(accountId, o.user ?? DEMO_OWNER);
      const { key, value } = await createApiKey(repo, { accountId, userId: u.id, name: o.name ?? 'reset-key', expiresAt: o.expires ?? null });
      out(`new API key ${key.id} for ${u.username} (older keys stay valid; revoke-key ends one)\nkey (shown once, store it now): ${value}`, {
        id: key.id,
        userId: u.id,
        prefix: key.prefix,
        expiresAt: key.expiresAt,
        key: value,
      });
      break;
    }
    case 'reset-password': {
      const accountId = o.account ?? DEMO_ACCOUNT;
      const u = await findUser(accountId, o.user ?? DEMO_OWNER);
      const password = o.password ?? randomBytes(12).toString('base64url');
      await setPassword(repo, accountId, u.id, password);
      out(`new sign-in password for ${u.username}: ${o.password ? '(the one given)' : password}`, { id: u.id, ...(o.password ? {} : { password }) });
      break;
    }
    case 'revoke-key': {
      const k = await revokeApiKey({ repo, cache: backends.cache! }, need('account'), need('key'));
      out(`revoked API key ${k.id} (${k.name}, ${k.prefix}...)`, { id: k.id, revokedAt: k.revokedAt });
      break;
    }
    case 'list-keys': {
      const accountId = need('account');
      const userId = o.user ? (await findUser(accountId, o.user)).id : null;
      const keys = await listApiKeys(repo, accountId, { userId, includeRevoked: o.all ?? false });
      const rows = keys.map((k) => ({
        id: k.id,
        name: k.name,
        prefix: k.prefix,
        userId: k.userId,
        createdAt: k.createdAt,
        expiresAt: k.expiresAt,
        revokedAt: k.revokedAt,
      }));
      out(
        rows
          .map(
            (k) =>
              `${k.id}  ${k.prefix}...  ${k.name}  user ${k.userId}${k.expiresAt ? `  expires ${k.expiresAt}` : ''}${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}`,
          )
          .join('\n') || '(no keys)',
        rows,
      );
      break;
    }
    case 'list-users': {
      const users = await repo.listUsers(need('account'));
      const rows = users.map((u) => ({ id: u.id, username: u.username, roles: u.roles, lastActivity: u.lastActivity, canSignIn: Boolean(u.passwordHash) }));
      out(
        rows.map((u) => `${u.id}  ${u.username}  ${u.roles.join(',')}${u.lastActivity ? `  last active ${u.lastActivity}` : ''}`).join('\n') || '(no users)',
        rows,
      );
      break;
    }
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
  await backends.close();
} catch (e) {
  await backends.close().catch(() => undefined);
  if (e instanceof UsageError) {
    process.stderr.write(`${e.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (isAppError(e)) {
    process.stderr.write(`error (${e.code}${typeof e.details.field === 'string' ? `, ${e.details.field}` : ''}): ${e.message}\n`);
    process.exit(1);
  }
  throw e;
}
