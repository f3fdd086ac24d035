/**
 * Dashboard / key-management tokens (decisions.md, "Identity and tenants"): HS256 with
 * JWT_SECRET (its UTF-8 bytes), or RS256/ES256 from a JWKS with issuer and audience. The accepted
 * algorithms are fixed here, never taken from the token's header.
 */
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { JwtConfig } from '../../config/load-config.js';

export interface TokenIdentity {
  readonly subject: string;
  readonly tenantId: string;
  readonly admin: boolean;
}

export type TokenVerification =
  | { readonly ok: true; readonly identity: TokenIdentity }
  | { readonly ok: false; readonly reason: string };

export interface TokenVerifier {
  verify(token: string): Promise<TokenVerification>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function identityOf(payload: JWTPayload): TokenVerification {
  const tenantId = payload.tenantId;
  if (typeof payload.sub !== 'string' || payload.sub === '') {
    return { ok: false, reason: 'missing claim sub' };
  }
  if (typeof tenantId !== 'string' || !UUID.test(tenantId)) {
    return { ok: false, reason: 'claim tenantId must be a UUID' };
  }
  return {
    ok: true,
    identity: {
      subject: payload.sub,
      tenantId: tenantId.toLowerCase(),
      admin: payload.role === 'admin',
    },
  };
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) {
    return 'token has expired';
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return `claim ${error.claim} is missing or invalid`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return 'signature verification failed';
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return 'algorithm not allowed';
  }
  return 'malformed token';
}

/** Builds the verifier for the configured mode; `secret` is the resolved HS256 secret. */
export function createTokenVerifier(config: JwtConfig, secret: string | null): TokenVerifier {
  if (config.mode === 'jwks') {
    const jwks = createRemoteJWKSet(new URL(config.jwksUrl));
    const options = {
      algorithms: ['RS256', 'ES256'],
      requiredClaims: ['exp', 'sub'],
      issuer: config.issuer,
      audience: config.audience,
    };
    return {
      async verify(token) {
        try {
          const { payload } = await jwtVerify(token, jwks, options);
          return identityOf(payload);
        } catch (error) {
          return { ok: false, reason: reasonOf(error) };
        }
      },
    };
  }
  if (secret === null) {
    throw new Error('HS256 mode needs a secret');
  }
  const key = new TextEncoder().encode(secret);
  return {
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          requiredClaims: ['exp', 'sub'],
        });
        return identityOf(payload);
      } catch (error) {
        return { ok: false, reason: reasonOf(error) };
      }
    },
  };
}

/** Signs an HS256 token as the CLI and tests hand them out. `ttlSeconds` sets `exp`. */
export async function signToken(
  secret: string,
  claims: { subject: string; tenantId: string; admin?: boolean },
  ttlSeconds: number,
  now: Date = new Date(),
): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ tenantId: claims.tenantId, ...(claims.admin ? { role: 'admin' } : {}) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.subject)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(new TextEncoder().encode(secret));
}
