/**
 * What happens before the session's token expires: with the identity provider's refresh token, a
 * renewal (renewalDelayMs: a minute before, at once when already expired); without one, signing
 * out, rather than at the next failed call. A refused renewal signs out with the provider's reason.
 */
import { useEffect } from 'preact/hooks';
import { describeRenewalError } from './oidc.js';
import { renewOidcSession } from './oidc-flow.js';
import { renewalDelayMs, type Session, saveSession } from './session.js';

/** setTimeout's longest delay (a 32-bit signed count of milliseconds), with a margin. */
const LONGEST_DELAY_MS = 2_147_000_000;

export function useSessionExpiry(
  session: Session | null,
  renewed: (session: Session | null) => void,
  signOut: (reason?: string) => void,
): void {
  useEffect(() => {
    const expiresAt = session?.claims.expiresAt ?? null;
    const refreshToken = session?.refreshToken ?? null;
    if (expiresAt === null) {
      return undefined;
    }
    let current = true;
    const now = Date.now();
    const expire = () => signOut('Your session expired. Sign in again.');
    const renew = (refresh: string) =>
      renewOidcSession(refresh).then(
        (tokens) => {
          if (current) {
            renewed(saveSession(window.sessionStorage, tokens.accessToken, tokens.refreshToken));
          }
        },
        (error: unknown) => {
          if (current) {
            signOut(describeRenewalError(error));
          }
        },
      );
    const timer =
      refreshToken === null
        ? setTimeout(expire, Math.min(Math.max(expiresAt - now, 0), LONGEST_DELAY_MS))
        : setTimeout(
            () => void renew(refreshToken),
            Math.min(renewalDelayMs(expiresAt, now), LONGEST_DELAY_MS),
          );
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [session, renewed, signOut]);
}
