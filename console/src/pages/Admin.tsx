/**
 * Administration: users and their roles (an administrator creates them), API keys (the key is
 * shown once, at creation, then only its prefix), webhook endpoints with their delivery log, a test
 * event and redelivery, and the audit log with filters. Each section shows only where the user's
 * policies allow it (Users, ApiKeys, Webhooks, AuditEvents in the `permissions` answer).
 */
import { useState, type ReactNode } from 'react';
import { Async, AsyncList, Empty, ErrorState } from '../components/states';
import { graphql } from '../gql';
import type { AuditEventFilterInput } from '../gql/graphql';
import { gql } from '../lib/api';
import { plural, theLast, when } from '../lib/format';
import { useRights, type Resource } from '../lib/permissions';
import { Link, useLocation } from '../lib/router';
import { accepted, useAction } from '../lib/use-action';
import { useQuery } from '../lib/use-query';
import { RecordTable, ROW_ACTIONS } from '../components/record-table';
import { Chips } from '../components/chips';

const Users = graphql(`
  query AdminUsers {
    userCount
    user(limit: 200, order: [{ username: ASC }]) {
      id
      username
      firstName
      lastName
      roles
      lastActivity
      disabled
    }
  }
`);

const UpdateUser = graphql(`
  mutation AdminUpdateUser($id: String!, $input: UpdateUserInput!) {
    updateUser(id: $id, input: $input) {
      success
      error
      errorField
    }
  }
`);

const CreateUser = graphql(`
  mutation AdminCreateUser($input: CreateUserInput!) {
    createUser(input: $input) {
      success
      error
    }
  }
`);

const Keys = graphql(`
  query AdminApiKeys {
    apiKeys(includeRevoked: true) {
      id
      name
      prefix
      userId
      createdOn
      expiresAt
      revokedAt
      isActive
    }
    user(limit: 200) {
      id
      username
    }
  }
`);

const CreateKey = graphql(`
  mutation AdminCreateApiKey($input: CreateApiKeyInput!) {
    createApiKey(input: $input) {
      success
      error
      key
    }
  }
`);

const RevokeKey = graphql(`
  mutation AdminRevokeApiKey($id: String!) {
    revokeApiKey(id: $id) {
      success
      error
    }
  }
`);

const Endpoints = graphql(`
  query AdminWebhooks {
    webhookEndpoints {
      id
      url
      description
      eventTypes
      enabled
      disabledReason
      consecutiveFailures
    }
  }
`);

const CreateEndpoint = graphql(`
  mutation AdminCreateWebhook($input: WebhookEndpointInput!) {
    createWebhookEndpoint(input: $input) {
      success
      error
      secret
    }
  }
`);

const TestEndpoint = graphql(`
  mutation AdminTestWebhook($id: String!) {
    sendTestWebhookEvent(id: $id) {
      success
      error
    }
  }
`);

const Redeliver = graphql(`
  mutation AdminRedeliverWebhook($id: String!, $eventId: String) {
    redeliverWebhookEvents(id: $id, eventId: $eventId) {
      success
      error
      count
    }
  }
`);

const Deliveries = graphql(`
  query AdminWebhookDeliveries($endpointId: String!) {
    webhookDeliveries(endpointId: $endpointId, limit: 25) {
      id
      eventId
      eventType
      status
      attemptCount
      nextAttemptAt
      createdOn
      attempts {
        at
        statusCode
        latencyMs
      }
    }
  }
`);

const Audit = graphql(`
  query AdminAudit($startDate: String, $endDate: String, $where: AuditEventFilterInput) {
    auditEvent(startDate: $startDate, endDate: $endDate, limit: 100, where: $where) {
      eventId
      timestamp
      userName
      httpMethod
      controllerName
      actionName
      responseCode
      interface
      ipAddress
    }
  }
`);

const ROLES = ['Owner', 'Administrator', 'Manager', 'Editor', 'Viewer', 'API'];
/** The roles of which a user holds one (API access is held beside them). */
const MAIN_ROLES = ROLES.filter((r) => r !== 'API');

/** A secret shown this once, with the advice to store it now. */
function ShownOnce({ label, value }: { label: string; value: string }) {
  return (
    <div className="state once" role="status">
      <p>
        <strong>{label}</strong> (shown this once; store it now, it cannot be read again):
      </p>
      <code data-testid="shown-once">{value}</code>{' '}
      <button type="button" onClick={() => void navigator.clipboard?.writeText(value)}>
        Copy
      </button>
    </div>
  );
}

function UsersSection() {
  const canEdit = useRights().can('Users', 'edit');
  const q = useQuery(() => gql(Users), []);
  const [form, setForm] = useState({ username: '', password: '', role: 'Viewer' });
  const a = useAction();
  const submit = a.submit(async () => {
    accepted((await gql(CreateUser, { input: { username: form.username, password: form.password || null, roles: [form.role] } })).createUser);
    setForm({ username: '', password: '', role: 'Viewer' });
    q.reload();
  });
  // Row actions: the main role (API access is kept as it is) and off-boarding; the server enforces who may.
  const row = useAction();
  const change = (id: string, input: { roles?: string[]; disabled?: boolean }) =>
    void row.run(async () => {
      accepted((await gql(UpdateUser, { id, input })).updateUser);
      q.reload();
    });
  return (
    <>
      {canEdit && (
        <form className="card filters" onSubmit={submit} aria-labelledby="new-user-h">
          <h2 id="new-user-h">Add a user</h2>
          <label>
            Sign-in name <input required value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} />
          </label>
          <label>
            Password (10+ characters){' '}
            <input type="password" minLength={10} value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} />
          </label>
          <label>
            Role{' '}
            <select value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value })}>
              {ROLES.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </label>
          <button type="submit" className="primary" disabled={a.busy}>
            Add user
          </button>
          {a.error && <ErrorState error={a.error} />}
        </form>
      )}
      {row.error && <ErrorState error={row.error} />}
      <AsyncList q={q} what="users" of={(d) => d.user} empty="No users">
        {(users, d) => (
          <RecordTable caption={plural(d.userCount, 'user')} columns={['User', 'Name', 'Roles', 'Last active', canEdit && 'Change']}>
            {users.map((u) => (
              <tr key={u.id}>
                <td>
                  {u.username}
                  {u.disabled && <span className="tag">disabled</span>}
                </td>
                <td>{[u.firstName, u.lastName].filter(Boolean).join(' ') || '—'}</td>
                <td>
                  <Chips items={u.roles} />
                </td>
                <td>{when(u.lastActivity)}</td>
                {canEdit && (
                  <td>
                    <select
                      aria-label={`Role of ${u.username}`}
                      value={MAIN_ROLES.find((r) => u.roles.includes(r)) ?? ''}
                      disabled={row.busy}
                      onChange={(e) => change(u.id, { roles: [e.target.value, ...u.roles.filter((r) => r === 'API')] })}
                    >
                      {MAIN_ROLES.map((r) => (
                        <option key={r}>{r}</option>
                      ))}
                    </select>{' '}
                    <button type="button" disabled={row.busy} onClick={() => change(u.id, { disabled: !u.disabled })}>
                      {u.disabled ? 'Enable' : 'Disable'}
                      <span className="visually-hidden"> {u.username}</span>
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </RecordTable>
        )}
      </AsyncList>
    </>
  );
}

function KeysSection() {
  const q = useQuery(() => gql(Keys), []);
  const [form, setForm] = useState({ name: '', userId: '' });
  const [shown, setShown] = useState<string>();
  const a = useAction();
  const create = a.submit(async () => {
    const r = accepted((await gql(CreateKey, { input: { name: form.name, userId: form.userId } })).createApiKey);
    setShown(r.key ?? undefined);
    setForm({ ...form, name: '' });
    q.reload();
  });
  return (
    <Async q={q} what="API keys">
      {(d) => (
        <>
          <form className="card filters" onSubmit={create} aria-labelledby="new-key-h">
            <h2 id="new-key-h">Create an API key</h2>
            <label>
              Name <input required value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
            </label>
            <label>
              Acts as{' '}
              <select required value={form.userId} onChange={(e) => setForm({ ...form, userId: e.target.value })}>
                <option value="">Choose a user…</option>
                {d.user?.map((u) => (
                  <option key={u.id} value={u.id}>
                    {u.username}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" className="primary" disabled={a.busy}>
              Create key
            </button>
            {a.error && <ErrorState error={a.error} />}
          </form>
          {shown && <ShownOnce label="The new API key" value={shown} />}
          {!d.apiKeys?.length ? (
            <Empty title="No API keys yet">
              <p>Create one above for a script or integration; people sign in instead.</p>
            </Empty>
          ) : (
            <RecordTable caption={plural(d.apiKeys.length, 'API key')} columns={['Name', 'Prefix', 'User', 'Created', 'State', ROW_ACTIONS]}>
              {d.apiKeys.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{d.user?.find((u) => u.id === k.userId)?.username ?? k.userId}</td>
                  <td>{when(k.createdOn)}</td>
                  <td>{k.isActive ? 'active' : k.revokedAt ? `revoked ${when(k.revokedAt)}` : 'expired'}</td>
                  <td>
                    {k.isActive && (
                      <button type="button" onClick={() => void a.run(async () => (accepted((await gql(RevokeKey, { id: k.id })).revokeApiKey), q.reload()))}>
                        Revoke {k.name}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </RecordTable>
          )}
        </>
      )}
    </Async>
  );
}

function DeliveryLog({ endpointId, canEdit }: { endpointId: string; canEdit: boolean }) {
  const q = useQuery(() => gql(Deliveries, { endpointId }), [endpointId]);
  const a = useAction();
  const [note, setNote] = useState('');
  return (
    <div>
      <div className="title-row">
        <h3>Deliveries</h3>
        <button type="button" onClick={q.reload}>
          Refresh
        </button>
      </div>
      {a.error && <ErrorState error={a.error} />}
      {note && <p role="status">{note}</p>}
      <AsyncList
        q={q}
        what="deliveries"
        of={(d) => d.webhookDeliveries}
        empty="Nothing delivered yet"
        hint="Send a test event, or wait for an event this endpoint subscribes to."
      >
        {(deliveries) => (
          <RecordTable
            caption={theLast(deliveries.length, 'delivery', 'deliveries')}
            columns={['Event', 'State', 'Attempts', 'Last answer', 'Created', ROW_ACTIONS]}
            testId="deliveries"
          >
            {deliveries.map((w) => {
              const last = w.attempts[w.attempts.length - 1];
              return (
                <tr key={w.id}>
                  <td>{w.eventType}</td>
                  <td>{w.status.toLowerCase()}</td>
                  <td>{w.attemptCount}</td>
                  <td>{last ? `${last.statusCode ?? 'no answer'} in ${last.latencyMs} ms` : '—'}</td>
                  <td>{when(w.createdOn)}</td>
                  <td>
                    {canEdit && (
                      <button
                        type="button"
                        disabled={a.busy}
                        onClick={() =>
                          void a.run(async () => {
                            const r = accepted((await gql(Redeliver, { id: endpointId, eventId: w.eventId })).redeliverWebhookEvents);
                            setNote(`Queued ${plural(r.count ?? 0, 'redelivery', 'redeliveries')}.`);
                            q.reload();
                          })
                        }
                      >
                        Redeliver
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </RecordTable>
        )}
      </AsyncList>
    </div>
  );
}

function WebhooksSection() {
  const canEdit = useRights().can('Webhooks', 'edit');
  const q = useQuery(() => gql(Endpoints), []);
  const [form, setForm] = useState({ url: '', description: '', eventTypes: '' });
  const [secret, setSecret] = useState<string>();
  const [open, setOpen] = useState<string>();
  const a = useAction();
  const create = a.submit(async () => {
    const eventTypes = form.eventTypes
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean);
    const r = accepted(
      (await gql(CreateEndpoint, { input: { url: form.url, description: form.description || null, eventTypes: eventTypes.length ? eventTypes : null } }))
        .createWebhookEndpoint,
    );
    setSecret(r.secret ?? undefined);
    setForm({ url: '', description: '', eventTypes: '' });
    q.reload();
  });
  return (
    <>
      {canEdit && (
        <form className="card filters" onSubmit={create} aria-labelledby="new-hook-h">
          <h2 id="new-hook-h">Add a webhook endpoint</h2>
          <label>
            URL{' '}
            <input
              required
              type="url"
              value={form.url}
              onChange={(e) => setForm({ ...form, url: e.target.value })}
              placeholder="https://hooks.example.com/pylon"
            />
          </label>
          <label>
            Description <input value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} />
          </label>
          <label>
            Event types (empty: all){' '}
            <input value={form.eventTypes} onChange={(e) => setForm({ ...form, eventTypes: e.target.value })} placeholder="device.offline, alert.opened" />
          </label>
          <button type="submit" className="primary" disabled={a.busy}>
            Add endpoint
          </button>
        </form>
      )}
      {a.error && <ErrorState error={a.error} />}
      {secret && <ShownOnce label="The endpoint's signing secret" value={secret} />}
      <AsyncList
        q={q}
        what="webhook endpoints"
        of={(d) => d.webhookEndpoints}
        empty="No webhook endpoints yet"
        hint={canEdit ? 'Add one above: Pylon then posts signed events to it.' : 'An administrator can add one.'}
      >
        {(endpoints) => (
          <ul className="endpoints">
            {endpoints.map((w) => (
              <li key={w.id} className="card">
                <div className="title-row">
                  <h3>
                    <code>{w.url}</code>
                  </h3>
                  <span className={`badge ${w.enabled ? 'live-live' : ''}`}>
                    {w.enabled ? 'enabled' : `disabled${w.disabledReason ? `: ${w.disabledReason}` : ''}`}
                  </span>
                </div>
                <p className="muted">
                  {w.description ? `${w.description} · ` : ''}
                  {w.eventTypes.length ? w.eventTypes.join(', ') : 'all event types'}
                  {w.consecutiveFailures ? ` · ${plural(w.consecutiveFailures, 'failure')} in a row` : ''}
                </p>
                <div className="actions">
                  {canEdit && (
                    <button
                      type="button"
                      disabled={a.busy}
                      onClick={() =>
                        void a.run(async () => {
                          accepted((await gql(TestEndpoint, { id: w.id })).sendTestWebhookEvent);
                          setOpen(w.id);
                        })
                      }
                    >
                      Send a test event
                    </button>
                  )}
                  <button type="button" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? undefined : w.id)}>
                    {open === w.id ? 'Hide deliveries' : 'Show deliveries'}
                  </button>
                </div>
                {open === w.id && <DeliveryLog key={`${w.id}-${a.busy}`} endpointId={w.id} canEdit={canEdit} />}
              </li>
            ))}
          </ul>
        )}
      </AsyncList>
    </>
  );
}

function AuditSection() {
  const [f, setF] = useState({ from: '', to: '', user: '', area: '', action: '', failedOnly: false });
  const [applied, setApplied] = useState(f);
  const where: AuditEventFilterInput = {
    ...(applied.user ? { userName: { contains: applied.user } } : {}),
    ...(applied.area ? { controllerName: { eq: applied.area } } : {}),
    ...(applied.action ? { actionName: { contains: applied.action } } : {}),
    ...(applied.failedOnly ? { responseCode: { gte: 400 } } : {}),
  };
  const q = useQuery(
    () => gql(Audit, { startDate: applied.from ? `${applied.from}T00:00:00Z` : null, endDate: applied.to ? `${applied.to}T23:59:59Z` : null, where }),
    [JSON.stringify(applied)],
  );
  return (
    <>
      <form
        className="card filters"
        aria-label="Audit log filters"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(f);
        }}
      >
        <label>
          From <input type="date" value={f.from} onChange={(e) => setF({ ...f, from: e.target.value })} />
        </label>
        <label>
          To <input type="date" value={f.to} onChange={(e) => setF({ ...f, to: e.target.value })} />
        </label>
        <label>
          User contains <input value={f.user} onChange={(e) => setF({ ...f, user: e.target.value })} />
        </label>
        <label>
          Area <input value={f.area} onChange={(e) => setF({ ...f, area: e.target.value })} placeholder="graphql, Devices, oauth" />
        </label>
        <label>
          Action contains <input value={f.action} onChange={(e) => setF({ ...f, action: e.target.value })} />
        </label>
        <label className="inline">
          <input type="checkbox" checked={f.failedOnly} onChange={(e) => setF({ ...f, failedOnly: e.target.checked })} /> refused or failed only
        </label>
        <button type="submit">Apply</button>
      </form>
      <AsyncList q={q} what="the audit log" of={(d) => d.auditEvent} empty="No audit events match" hint="Widen the dates or clear a filter.">
        {(events) => (
          <RecordTable caption={theLast(events.length, 'event', 'events', 'The newest')} columns={['When', 'User', 'Via', 'Area', 'Action', 'Answer', 'From']}>
            {events.map((e) => (
              <tr key={e.eventId}>
                <td>{when(e.timestamp)}</td>
                <td>{e.userName ?? '—'}</td>
                <td>
                  {e.interface} {e.httpMethod}
                </td>
                <td>{e.controllerName}</td>
                <td>{e.actionName}</td>
                <td className={e.responseCode >= 400 ? 'bad' : undefined}>{e.responseCode}</td>
                <td>{e.ipAddress ?? '—'}</td>
              </tr>
            ))}
          </RecordTable>
        )}
      </AsyncList>
    </>
  );
}

const SECTIONS: { path: string; label: string; needs: Resource; node: () => ReactNode }[] = [
  { path: '/admin', label: 'Users and roles', needs: 'Users', node: () => <UsersSection /> },
  { path: '/admin/keys', label: 'API keys', needs: 'ApiKeys', node: () => <KeysSection /> },
  { path: '/admin/webhooks', label: 'Webhooks', needs: 'Webhooks', node: () => <WebhooksSection /> },
  { path: '/admin/audit', label: 'Audit log', needs: 'AuditEvents', node: () => <AuditSection /> },
];

/** Whether the user may see any administration section (the console's navigation asks). */
export const ADMIN_RESOURCES: Resource[] = SECTIONS.map((s) => s.needs);

export function AdminPage() {
  const rights = useRights();
  const { path } = useLocation();
  const allowed = SECTIONS.filter((s) => rights.can(s.needs));
  const current = allowed.find((s) => s.path === path) ?? allowed[0];
  return (
    <section>
      <h1>Administration</h1>
      <nav aria-label="Administration" className="subnav">
        <ul>
          {allowed.map((s) => (
            <li key={s.path}>
              <Link to={s.path} aria-current={s === current ? 'page' : undefined}>
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {current ? (
        <div key={current.path}>
          <h2 className="visually-hidden">{current.label}</h2>
          {current.node()}
        </div>
      ) : (
        <Empty title="Your role allows no administration">
          <p>Ask an account owner if you need to manage users, keys, webhooks or the audit log.</p>
        </Empty>
      )}
    </section>
  );
}
