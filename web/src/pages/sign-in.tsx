/**
 * Sign-in: with the identity provider (OpenID Connect, when the service is configured for it:
 * /app/config.json) or with a dashboard token (a JWT from `rampart token` or the provider). The
 * provider sends the browser back to /app/callback, where this page completes the sign-in and
 * takes the code out of the address bar.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import { describeSignInError, type OidcSettings, readOidcSettings } from '../lib/oidc.js';
import { fetchOidcSettings, finishOidcSignIn, startOidcSignIn } from '../lib/oidc-flow.js';
import { tokenProblem } from '../lib/session.js';

type Provider =
  | { readonly state: 'loading' }
  | { readonly state: 'ready'; readonly settings: OidcSettings | null };

export function SignInPage(props: {
  notice: string | null;
  onSignIn: (token: string, refreshToken: string | null) => void;
}) {
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [provider, setProvider] = useState<Provider>({ state: 'loading' });
  const [busy, setBusy] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [location, navigate] = useLocation();
  const finishing = useRef(false);
  const { onSignIn } = props;

  useEffect(() => {
    fetchOidcSettings()
      .then((body) => setProvider({ state: 'ready', settings: readOidcSettings(body) }))
      .catch(() => setProvider({ state: 'ready', settings: null }));
  }, []);

  // Back from the provider: exchange the code once, then leave /callback (and its code) behind.
  useEffect(() => {
    if (location !== '/callback' || provider.state !== 'ready' || finishing.current) {
      return;
    }
    finishing.current = true;
    const { settings } = provider;
    if (settings === null) {
      navigate('/', { replace: true });
      setFailure('Sign-in with an identity provider is not configured on this service.');
      return;
    }
    setBusy(`Signing in with ${settings.providerName}…`);
    finishOidcSignIn(settings, window.sessionStorage, new URL(window.location.href))
      .then((tokens) => {
        navigate('/', { replace: true });
        onSignIn(tokens.accessToken, tokens.refreshToken);
      })
      .catch((error: unknown) => {
        navigate('/', { replace: true });
        setBusy(null);
        setFailure(describeSignInError(error));
      });
  }, [location, provider, navigate, onSignIn]);

  const startProvider = (settings: OidcSettings) => {
    setFailure(null);
    setBusy(`Going to ${settings.providerName}…`);
    startOidcSignIn(settings, window.sessionStorage).catch((error: unknown) => {
      setBusy(null);
      setFailure(describeSignInError(error));
    });
  };

  const submit = (event: Event) => {
    event.preventDefault();
    const found = tokenProblem(token, Date.now());
    setProblem(found);
    if (found === null) {
      onSignIn(token, null);
    }
  };

  const settings = provider.state === 'ready' ? provider.settings : null;
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to Rampart</h1>
      {props.notice === null ? null : (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      {busy === null ? null : (
        <p class="notice" role="status">
          {busy}
        </p>
      )}
      {failure === null ? null : (
        <p class="notice error" role="alert">
          {failure}
        </p>
      )}
      {settings === null ? null : (
        <div class="provider">
          <button
            type="button"
            class="primary"
            disabled={busy !== null}
            onClick={() => startProvider(settings)}
          >
            Sign in with {settings.providerName}
          </button>
          <p class="muted">or paste a dashboard token:</p>
        </div>
      )}
      <form onSubmit={submit} noValidate>
        <label for="token">Dashboard token</label>
        <textarea
          id="token"
          name="token"
          rows={4}
          autoComplete="off"
          spellcheck={false}
          value={token}
          aria-invalid={problem !== null}
          aria-describedby="token-help token-problem"
          onInput={(event) => setToken(event.currentTarget.value)}
        />
        <p id="token-help" class="muted">
          A JWT for your tenant. With the service's own secret, print one with{' '}
          <code>rampart token --tenant &lt;uuid&gt;</code>.
        </p>
        {problem === null ? null : (
          <p id="token-problem" class="notice error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" class={settings === null ? 'primary' : ''}>
          Sign in
        </button>
      </form>
    </main>
  );
}
