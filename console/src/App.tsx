/** The console's shell: sign-in, the user's rights, navigation and the page for the current path. */
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { ErrorState, Loading } from './components/states';
import { gql } from './lib/api';
import { CALLBACK_PATH, hasSession, completeSignIn, signIn, signOut } from './lib/auth';
import { PermissionsDocument, Rights, RightsContext, type Resource } from './lib/permissions';
import { Link, navigate, useLocation } from './lib/router';
import { useQuery } from './lib/use-query';
import { AdminPage, ADMIN_RESOURCES } from './pages/Admin';
import { AnalyticsPage } from './pages/Analytics';
import { DataTablesPage } from './pages/DataTables';
import { MediaPage } from './pages/Media';
import { OverridesPage } from './pages/Overrides';
import { OverviewPage } from './pages/Overview';
import { PairPage } from './pages/Pair';
import { PlaylistsPage } from './pages/Playlists';
import { PowerPage } from './pages/Power';
import { SchedulesPage } from './pages/Schedules';
import { ScreenPage } from './pages/Screen';
import { ScreensPage } from './pages/Screens';

interface Route {
  path: string;
  label: string;
  /** The document's title, when not the label. */
  title?: string;
  /** Shown when the user may view this resource (or any of these). */
  needs: Resource | Resource[];
  Page: () => ReactNode;
}
const may = (rights: Rights, needs: Resource | Resource[]) => (Array.isArray(needs) ? needs.some((n) => rights.can(n)) : rights.can(needs));
// Issue 37's pages sit beside Schedules; its bulk actions live on Screens, content expiry in
// Playlists and Media, CAP feeds on Overrides.
const NAV: Route[] = [
  { path: '/', label: 'Overview', needs: 'Devices', Page: OverviewPage },
  { path: '/screens', label: 'Screens', needs: 'Devices', Page: ScreensPage },
  { path: '/pair', label: 'Pair a screen', needs: 'Devices', Page: PairPage },
  { path: '/media', label: 'Media', needs: 'Files', Page: MediaPage },
  { path: '/playlists', label: 'Playlists', title: 'Playlists and templates', needs: 'Playlists', Page: PlaylistsPage },
  { path: '/schedules', label: 'Schedules', needs: 'Schedules', Page: SchedulesPage },
  { path: '/power', label: 'Power', title: 'Power schedules', needs: 'Schedules', Page: PowerPage },
  { path: '/overrides', label: 'Overrides', needs: 'Overrides', Page: OverridesPage },
  { path: '/datatables', label: 'Data tables', needs: 'DataTables', Page: DataTablesPage },
  { path: '/analytics', label: 'Analytics', needs: 'Analytics', Page: AnalyticsPage },
  { path: '/admin', label: 'Administration', needs: ADMIN_RESOURCES, Page: AdminPage },
];

function page(path: string): { node: ReactNode; needs: Resource | Resource[]; title: string } {
  const screen = /^\/screens\/([^/]+)$/.exec(path);
  if (screen) return { node: <ScreenPage id={decodeURIComponent(screen[1]!)} />, needs: 'Devices', title: 'Screen' };
  // The administration's sections are addresses of its one page.
  const route = NAV.find((r) => r.path === (/^\/admin(\/(keys|webhooks|audit))?$/.test(path) ? '/admin' : path));
  if (route) return { node: <route.Page />, needs: route.needs, title: route.title ?? route.label };
  return {
    node: (
      <section>
        <h1>Page not found</h1>
        <p>
          There is no console page at this address. <Link to="/">Go to the overview</Link>.
        </p>
      </section>
    ),
    needs: 'Account',
    title: 'Not found',
  };
}

function Callback() {
  const [error, setError] = useState<Error>();
  useEffect(() => {
    completeSignIn().then(
      (to) => navigate(to, true),
      (e: unknown) => setError(e instanceof Error ? e : new Error(String(e))),
    );
  }, []);
  return (
    <main className="signin" id="main">
      <h1>Signing in</h1>
      {error ? <ErrorState error={error} retry={() => void signIn('/console/')} /> : <Loading what="your session" />}
    </main>
  );
}

function SignIn() {
  return (
    <main className="signin" id="main">
      <h1>Pylon console</h1>
      <p>Sign in with your Pylon user to manage screens, media and schedules.</p>
      <button type="button" className="primary" onClick={() => void signIn()}>
        Sign in
      </button>
    </main>
  );
}

function NoAccess() {
  return (
    <main className="signin" id="main">
      <h1>No access yet</h1>
      <p>You are signed in, but your user has no role that allows viewing anything in this account.</p>
      <p>Ask an account owner or administrator to give you a role (for example Viewer or Editor), then sign in again.</p>
      <SignOutButton />
    </main>
  );
}

function SignOutButton() {
  return (
    <button
      type="button"
      onClick={() => {
        signOut();
        navigate('/console/', true);
      }}
    >
      Sign out
    </button>
  );
}

function Shell({ rights }: { rights: Rights }) {
  const { path } = useLocation();
  const current = page(path);
  useEffect(() => {
    document.title = `${current.title} · Pylon console`;
  }, [current.title]);
  const allowed = current.needs === 'Account' || may(rights, current.needs);
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Pylon</span>
        <nav aria-label="Console">
          <ul>
            {NAV.filter((r) => may(rights, r.needs)).map((r) => (
              <li key={r.path}>
                <Link to={r.path} aria-current={r.path === path || (r.path !== '/' && path.startsWith(`${r.path}/`)) ? 'page' : undefined}>
                  {r.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <SignOutButton />
      </header>
      <main id="main" tabIndex={-1}>
        {allowed ? (
          current.node
        ) : (
          <section>
            <h1>Not allowed</h1>
            <p>Your role does not allow viewing this page. Ask an account owner for access, or open a page your role allows:</p>
            <ul>
              {NAV.filter((r) => may(rights, r.needs)).map((r) => (
                <li key={r.path}>
                  <Link to={r.path}>{r.label}</Link>
                </li>
              ))}
            </ul>
          </section>
        )}
      </main>
    </div>
  );
}

function SignedIn() {
  const q = useQuery(() => gql(PermissionsDocument), []);
  const rights = useMemo(() => (q.data?.permissions ? new Rights(q.data.permissions) : undefined), [q.data]);
  if (q.error)
    return (
      <main className="signin" id="main">
        <h1>Pylon console</h1>
        <ErrorState error={q.error} retry={q.reload} />
      </main>
    );
  if (!q.data)
    return (
      <main className="signin" id="main">
        <Loading what="your permissions" />
      </main>
    );
  if (!rights || !rights.any) return <NoAccess />;
  return (
    <RightsContext.Provider value={rights}>
      <Shell rights={rights} />
    </RightsContext.Provider>
  );
}

export function App() {
  useLocation(); // re-render on navigation (the callback replaces its own address)
  if (location.pathname === CALLBACK_PATH) return <Callback />;
  if (!hasSession()) return <SignIn />;
  return <SignedIn />;
}
