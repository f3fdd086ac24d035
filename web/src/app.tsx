/**
 * The dashboard: sign-in, then every page under one layout with the main navigation. Routes live
 * under /app (the service answers index.html for each of them).
 */
import { useCallback, useMemo, useRef, useState } from 'preact/hooks';
import { Link, Redirect, Route, Router, Switch, useLocation } from 'wouter-preact';
import { type Api, ApiContext, createApi } from './lib/api.js';
import {
  clearSession,
  loadSession,
  type Session,
  saveSession,
  sessionNeedsRenewal,
} from './lib/session.js';
import { useSessionExpiry } from './lib/use-session-expiry.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { AssetDetailPage } from './pages/asset-detail.js';
import { AssetsPage } from './pages/assets.js';
import { IssueDetailPage } from './pages/issue-detail.js';
import { IssuesPage } from './pages/issues.js';
import { NewScanPage } from './pages/new-scan.js';
import { ScanDetailPage } from './pages/scan-detail.js';
import { ScansPage } from './pages/scans.js';
import { ScheduleDetailPage } from './pages/schedule-detail.js';
import { SchedulesPage } from './pages/schedules.js';
import { SignInPage } from './pages/sign-in.js';
import { UsagePage } from './pages/usage.js';
import { WebhookPage } from './pages/webhook-detail.js';
import { WebhooksPage } from './pages/webhooks.js';

const NAV: readonly { href: string; label: string }[] = [
  { href: '/scans', label: 'Scans' },
  { href: '/issues', label: 'Issues' },
  { href: '/assets', label: 'Assets' },
  { href: '/schedules', label: 'Schedules' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/keys', label: 'API keys' },
  { href: '/usage', label: 'Usage' },
];

export function App() {
  const [session, setSession] = useState<Session | null>(() =>
    loadSession(window.sessionStorage, Date.now()),
  );
  const [notice, setNotice] = useState<string | null>(null);

  const signOut = useCallback((reason?: string) => {
    clearSession(window.sessionStorage);
    setSession(null);
    setNotice(reason ?? null);
  }, []);
  const signIn = useCallback((token: string, refreshToken: string | null) => {
    setSession(saveSession(window.sessionStorage, token, refreshToken));
    setNotice(null);
  }, []);

  useSessionExpiry(session, setSession, signOut);

  // One client while the same user is signed in: a renewed token is read through the ref.
  const token = useRef('');
  token.current = session?.token ?? '';
  const signedInAs = session === null ? null : session.claims;
  const identity =
    signedInAs === null
      ? null
      : `${signedInAs.tenantId ?? ''}/${signedInAs.subject}/${signedInAs.admin}`;
  // Keyed on who is signed in, not on each renewed token (one identity's claims differ but in exp).
  const api = useMemo<Api | null>(
    () => (signedInAs === null ? null : createApi(() => token.current, signedInAs, signOut)),
    [identity, signOut],
  );

  return (
    <Router base="/app">
      {api === null || session === null ? (
        <SignInPage notice={notice} onSignIn={signIn} />
      ) : sessionNeedsRenewal(session, Date.now()) ? (
        <main id="main" class="sign-in">
          <p role="status">Renewing your session…</p>
        </main>
      ) : (
        <ApiContext.Provider value={api}>
          <Layout api={api}>
            <Switch>
              <Route path="/scans" component={ScansPage} />
              <Route path="/issues" component={IssuesPage} />
              <Route path="/issues/:issueId" component={IssueDetailPage} />
              <Route path="/assets" component={AssetsPage} />
              <Route path="/assets/:assetId" component={AssetDetailPage} />
              <Route path="/schedules" component={SchedulesPage} />
              <Route path="/schedules/:scheduleId" component={ScheduleDetailPage} />
              <Route path="/usage" component={UsagePage} />
              <Route path="/webhooks" component={WebhooksPage} />
              <Route path="/webhooks/:webhookId" component={WebhookPage} />
              <Route path="/keys" component={ApiKeysPage} />
              <Route path="/scans/new" component={NewScanPage} />
              <Route path="/scans/:scanId" component={ScanDetailPage} />
              {/* Back from the identity provider while already signed in: nothing to finish. */}
              <Route path="/callback">
                <Redirect to="/scans" replace />
              </Route>
              <Route path="/">
                <Redirect to="/scans" replace />
              </Route>
              <Route>
                <NotFound />
              </Route>
            </Switch>
          </Layout>
        </ApiContext.Provider>
      )}
    </Router>
  );
}

/** A section's link is current on its list and on every page under it (/webhooks/…). */
function isCurrent(location: string, href: string): boolean {
  return location === href || location.startsWith(`${href}/`);
}

function Layout(props: { api: Api; children: preact.ComponentChildren }) {
  const { claims } = props.api;
  const [location] = useLocation();
  return (
    <div class="layout">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Rampart</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <Link
                  href={item.href}
                  className={isCurrent(location, item.href) ? 'active' : ''}
                  aria-current={isCurrent(location, item.href) ? 'page' : undefined}
                >
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span title={claims.tenantId ?? undefined}>
            {claims.subject || 'signed in'}
            {claims.admin ? ' (admin)' : ''}
          </span>
          <button type="button" class="link" onClick={() => props.api.signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {props.children}
      </main>
    </div>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no such page. <Link href="/scans">Back to scans</Link>
      </p>
    </section>
  );
}
