/**
 * A test double of an OpenID Connect identity provider, served over HTTPS with the test CA's
 * certificate (test/support/tls.ts) on 127.0.0.1: discovery, a JWKS, an authorization endpoint that
 * signs the user in at once (no login page) and sends the browser back with a code, and a token
 * endpoint that exchanges the code for RS256 tokens once its PKCE code_verifier matches.
 *
 * The issuer is `https://127.0.0.1:<port>`; the token endpoint is served on the same port under
 * the name `localhost` (the certificate covers both), so the token endpoint's origin differs from
 * the issuer's, as with providers that hand out tokens from another host: a page must allow both.
 *
 * Like a real provider it checks client_id, redirect_uri (registered with allowRedirectUri),
 * response_type=code, an S256 code_challenge, state and nonce at the authorization endpoint; the
 * code, client_id, redirect_uri and code_verifier at the token endpoint, where a code is used once.
 * The code exchange also issues a refresh token, rotated at each refresh (a used one is refused
 * with invalid_grant, as providers that rotate them do); refuseRefreshes() revokes them all.
 * Its token endpoint and discovery answer CORS requests from any origin (a browser client calls
 * them). The access token carries `aud` = the API's audience and the user's `tenantId`; the ID
 * token `aud` = the client id and the request's nonce.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { readTestTls } from '../support/tls.js';

export interface OidcProviderDoubleOptions {
  readonly clientId: string;
  /** The API's audience: the access tokens' `aud` (the service's JWT_AUDIENCE). */
  readonly audience: string;
}

/** Who the authorization endpoint signs in. */
export interface ProviderUser {
  readonly sub: string;
  readonly tenantId: string;
}

/** One call of the token endpoint: `issued`, or the error it answered. */
export interface TokenRequestRecord {
  readonly outcome: 'issued' | string;
  readonly description: string | null;
}

export interface OidcProviderDouble {
  /** `https://127.0.0.1:<port>`: the service's JWT_ISSUER. */
  readonly issuer: string;
  /** The service's JWT_JWKS_URL. */
  readonly jwksUrl: string;
  /** `https://localhost:<port>/token`. */
  readonly tokenEndpoint: string;
  /** Every token endpoint call so far, in order (the array grows in place). */
  readonly tokenRequests: TokenRequestRecord[];
  /** Accept this redirect URI for the client from now on. */
  allowRedirectUri(uri: string): void;
  /** Sign in this user at the authorization endpoint from now on. */
  setUser(user: ProviderUser): void;
  /** An access token as the token endpoint issues them, for calls outside the browser. */
  issueAccessToken(user: ProviderUser): Promise<string>;
  /** Access tokens issued from now on expire after this many seconds (600 at first). */
  setAccessTokenLifetime(seconds: number): void;
  /** Refuses every refresh token issued so far (invalid_grant), as a revoked session is. */
  refuseRefreshes(): void;
  close(): Promise<void>;
}

interface IssuedCode {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly nonce: string;
  readonly user: ProviderUser;
  used: boolean;
}

const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export async function startOidcProviderDouble(
  options: OidcProviderDoubleOptions,
): Promise<OidcProviderDouble> {
  const tls = readTestTls();
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'double-1', alg: 'RS256', use: 'sig' };
  const redirectUris = new Set<string>();
  const codes = new Map<string, IssuedCode>();
  /** Live refresh tokens and whom they sign in; a refresh removes the one it used. */
  const refreshTokens = new Map<string, ProviderUser>();
  let accessTokenLifetime = 600;
  const tokenRequests: TokenRequestRecord[] = [];
  const sockets = new Set<Socket>();
  let user: ProviderUser = { sub: 'user-1', tenantId: '00000000-0000-4000-8000-000000000000' };
  let port = 0;
  const issuerOf = () => `https://127.0.0.1:${port}`;

  const sign = (claims: Record<string, unknown>, audience: string, subject: string) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'JWT' })
      .setIssuer(issuerOf())
      .setAudience(audience)
      .setSubject(subject)
      .setIssuedAt()
      .setExpirationTime(`${accessTokenLifetime}s`)
      .sign(privateKey);
  const accessToken = (who: ProviderUser) =>
    sign({ tenantId: who.tenantId, client_id: options.clientId }, options.audience, who.sub);

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'access-control-allow-origin': '*',
    });
    res.end(JSON.stringify(body));
  };
  const refuse = (res: ServerResponse, reason: string) => {
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`The test identity provider refused the authorization request: ${reason}`);
  };

  const authorize = (url: URL, res: ServerResponse) => {
    const query = url.searchParams;
    const redirectUri = query.get('redirect_uri') ?? '';
    // Never redirect to an address that is not registered for the client: answer here instead.
    if (query.get('client_id') !== options.clientId) {
      return refuse(res, 'unknown client_id');
    }
    if (!redirectUris.has(redirectUri)) {
      return refuse(res, 'redirect_uri is not registered for this client');
    }
    const problem =
      query.get('response_type') !== 'code'
        ? 'response_type must be code'
        : query.get('code_challenge_method') !== 'S256'
          ? 'code_challenge_method must be S256'
          : !CODE_CHALLENGE.test(query.get('code_challenge') ?? '')
            ? 'code_challenge must be a SHA-256 in base64url'
            : !query.get('state')
              ? 'state is required'
              : !query.get('nonce')
                ? 'nonce is required'
                : !(query.get('scope') ?? '').split(' ').includes('openid')
                  ? 'scope must include openid'
                  : null;
    if (problem !== null) {
      return refuse(res, problem);
    }
    const code = randomBytes(24).toString('base64url');
    codes.set(code, {
      clientId: options.clientId,
      redirectUri,
      codeChallenge: query.get('code_challenge') ?? '',
      nonce: query.get('nonce') ?? '',
      user,
      used: false,
    });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    back.searchParams.set('state', query.get('state') ?? '');
    back.searchParams.set('iss', issuerOf());
    res.writeHead(302, { location: back.href, 'cache-control': 'no-store' });
    res.end();
  };

  const token = async (body: string, res: ServerResponse) => {
    const form = new URLSearchParams(body);
    const fail = (error: string, description: string) => {
      tokenRequests.push({ outcome: error, description });
      json(res, 400, { error, error_description: description });
    };
    const code = codes.get(form.get('code') ?? '');
    const grant = form.get('grant_type');
    if (grant !== 'authorization_code' && grant !== 'refresh_token') {
      return fail(
        'unsupported_grant_type',
        'grant_type must be authorization_code or refresh_token',
      );
    }
    if (form.get('client_id') !== options.clientId) {
      return fail('invalid_client', 'unknown client_id');
    }
    if (grant === 'refresh_token') {
      const used = form.get('refresh_token') ?? '';
      const who = refreshTokens.get(used);
      if (who === undefined) {
        return fail('invalid_grant', 'the refresh token is unknown, used or revoked');
      }
      refreshTokens.delete(used);
      tokenRequests.push({ outcome: 'refreshed', description: null });
      return json(res, 200, await tokensFor(who, null));
    }
    if (code === undefined || code.used) {
      return fail('invalid_grant', 'the code is unknown or was already used');
    }
    code.used = true;
    if (form.get('redirect_uri') !== code.redirectUri) {
      return fail('invalid_grant', 'redirect_uri differs from the authorization request');
    }
    const verifier = form.get('code_verifier') ?? '';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    if (challenge !== code.codeChallenge) {
      return fail('invalid_grant', 'code_verifier does not match the code_challenge');
    }
    tokenRequests.push({ outcome: 'issued', description: null });
    json(res, 200, await tokensFor(code.user, code.nonce));
  };

  /** A token answer: a refreshed one's ID token has no nonce (OpenID Connect Core 12.2). */
  const tokensFor = async (who: ProviderUser, nonce: string | null) => {
    const refreshToken = randomBytes(24).toString('base64url');
    refreshTokens.set(refreshToken, who);
    return {
      access_token: await accessToken(who),
      id_token: await sign(nonce === null ? {} : { nonce }, options.clientId, who.sub),
      refresh_token: refreshToken,
      token_type: 'Bearer',
      expires_in: accessTokenLifetime,
      scope: 'openid',
    };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url ?? '/', issuerOf());
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': 'accept, content-type, authorization',
        'access-control-max-age': '600',
      });
      return res.end();
    }
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      return json(res, 200, {
        issuer: issuerOf(),
        authorization_endpoint: `${issuerOf()}/authorize`,
        token_endpoint: `https://localhost:${port}/token`,
        jwks_uri: `${issuerOf()}/jwks.json`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: ['openid'],
        authorization_response_iss_parameter_supported: true,
      });
    }
    if (req.method === 'GET' && url.pathname === '/jwks.json') {
      return json(res, 200, { keys: [jwk] });
    }
    if (req.method === 'GET' && url.pathname === '/authorize') {
      return authorize(url, res);
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      return token(body, res);
    }
    return json(res, 404, { error: 'not_found' });
  };

  const server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch(() => {
        if (!res.headersSent) {
          res.writeHead(500);
        }
        res.end();
      });
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;

  return {
    issuer: issuerOf(),
    jwksUrl: `${issuerOf()}/jwks.json`,
    tokenEndpoint: `https://localhost:${port}/token`,
    tokenRequests,
    allowRedirectUri: (uri) => {
      redirectUris.add(uri);
    },
    setUser: (next) => {
      user = next;
    },
    issueAccessToken: accessToken,
    setAccessTokenLifetime: (seconds) => {
      accessTokenLifetime = seconds;
    },
    refuseRefreshes: () => refreshTokens.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) {
          socket.destroy();
        }
      }),
  };
}
