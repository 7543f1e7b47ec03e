/**
 * The directory ports over the other subgraphs' GraphQL (distributed mode), each request signed as
 * the caller so the other subgraph answers from the caller's account only.
 */
import { AppError, INTERNAL_TOKEN_HEADER, type InternalTokens, type Principal } from '@pylon/kit';
import type { AccountDirectory } from '../ports/account-directory.js';
import type { ContentDirectory } from '../ports/content-directory.js';
import type { DeviceDirectory, DeviceFacts } from '../ports/device-directory.js';

interface Target {
  url: string;
  tokens: InternalTokens;
  timeoutMs?: number;
}

async function ask<T>(t: Target, caller: Principal, query: string, variables: Record<string, unknown>, what: string): Promise<T> {
  const res = await fetch(new URL('/graphql', t.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: await t.tokens.sign(caller) },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(t.timeoutMs ?? 5000),
  }).catch(() => null);
  const body = res?.ok ? ((await res.json().catch(() => null)) as { data?: T } | null) : null;
  if (!body?.data) throw new AppError('UNAVAILABLE', `${what} could not be checked; retry`);
  return body.data;
}

export function createHttpDeviceDirectory(t: Target): DeviceDirectory {
  return {
    async devices(caller, ids) {
      if (!ids.length) return new Map();
      const data = await ask<{ device: DeviceFacts[] | null }>(t, caller, 'query($id: [String!], $limit: Int) { device(id: $id, limit: $limit) { id timezone } }', { id: ids, limit: ids.length }, 'the devices');
      return new Map((data.device ?? []).map((d) => [d.id, { id: d.id, timezone: d.timezone ?? null }]));
    },
  };
}

export function createHttpAccountDirectory(t: Target): AccountDirectory {
  return {
    async timeZone(caller) {
      const data = await ask<{ account: { timezone: string } | null }>(t, caller, '{ account { timezone } }', {}, 'the account');
      return data.account?.timezone ?? 'UTC';
    },
    async hasOrganization(caller, orgId) {
      const data = await ask<{ organizations: { id: string }[] | null }>(t, caller, 'query($id: [String!]) { organizations(id: $id, limit: 1) { id } }', { id: [orgId] }, 'the organization');
      return (data.organizations ?? []).some((o) => o.id === orgId);
    },
  };
}

export function createHttpContentDirectory(t: Target): ContentDirectory {
  return {
    async existing(caller, kind, ids) {
      if (!ids.length) return new Set();
      const query = `query($ids: [String], $limit: Int) { ${kind}(where: { id: { in: $ids } }, limit: $limit) { id } }`;
      const data = await ask<Record<string, { id: string }[] | null>>(t, caller, query, { ids, limit: ids.length }, `the ${kind}s`);
      return new Set((data[kind] ?? []).map((r) => r.id));
    },
  };
}
