/**
 * What the dashboard reads from its own token: who is signed in and until when. The service
 * verifies the token on every call; these claims only drive the page (the name shown, signing
 * out when the token expires), so they are decoded, never trusted.
 */
export interface TokenClaims {
  readonly subject: string;
  readonly tenantId: string | null;
  readonly admin: boolean;
  /** Epoch milliseconds; null when the token has no `exp`. */
  readonly expiresAt: number | null;
}

function decodeSegment(segment: string): unknown {
  const base64 = segment.replace(/-/g, '+').replace(/_/g, '/');
  const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes));
}

/** The payload of a compact JWT as an object, or null when the text is not one. */
export function readTokenPayload(token: string): Record<string, unknown> | null {
  const parts = token.trim().split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) {
    return null;
  }
  let payload: unknown;
  try {
    payload = decodeSegment(parts[1] ?? '');
  } catch {
    return null;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return null;
  }
  return payload as Record<string, unknown>;
}

/** The claims of a compact JWT, or null when the text is not one. */
export function readTokenClaims(token: string): TokenClaims | null {
  const claims = readTokenPayload(token);
  if (claims === null) {
    return null;
  }
  return {
    subject: typeof claims.sub === 'string' ? claims.sub : '',
    tenantId: typeof claims.tenantId === 'string' ? claims.tenantId : null,
    admin: claims.role === 'admin',
    expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : null,
  };
}

/** True when the token's `exp` has passed at `now` (epoch ms). */
export function hasExpired(claims: TokenClaims, now: number): boolean {
  return claims.expiresAt !== null && claims.expiresAt <= now;
}
