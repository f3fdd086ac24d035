/**
 * The dashboard at /app: the single-page app `npm run build` writes to dist/app (web/, Vite),
 * served by the service itself. Hashed files under /app/static are cached for good; every other
 * path under /app is one of the app's own pages and answers index.html (never cached, so a new
 * build is picked up at once). Its Content-Security-Policy allows scripts, styles and calls to
 * this origin only, and with the identity provider's sign-in (OIDC_CLIENT_ID) calls to the
 * provider's issuer and token endpoint too. /app/config.json tells the app that sign-in's public
 * settings (`{ "oidc": null }` without it). Hidden from the OpenAPI document: these are pages, not
 * API operations.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DashboardOidcConfig } from '../../../../config/load-config.js';
import { createProviderOrigins, type ProviderOrigins } from '../../../oidc/provider-origins.js';

/** Where the build puts its hashed files under /app (web/vite.config.ts `build.assetsDir`). */
export const DASHBOARD_FILES_DIR = 'static';

/** dist/app of this checkout, from src/… (tsx) and from dist/… (the build) alike. */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../../../../dist/app/', import.meta.url));

/**
 * The page's policy; `providerOrigins` are the identity provider's origins the sign-in fetches
 * (discovery, token endpoint). Going to the provider's authorization endpoint and back is a
 * top-level navigation, which no directive here restricts.
 */
export function contentSecurityPolicy(providerOrigins: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ["connect-src 'self'", ...providerOrigins].join(' '),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** What GET /app/config.json answers: the sign-in's public settings, never a secret. */
export interface DashboardSettings {
  readonly oidc: {
    readonly issuer: string;
    readonly clientId: string;
    readonly scopes: string;
    readonly audience: string;
    readonly providerName: string;
  } | null;
}

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Rampart</title>
<p>The dashboard is not built. Run <code>npm run build</code> (<code>npm start</code> builds it), then
reload this page.</p></html>`;

export interface DashboardOptions {
  /** Where the built app is (defaults to dist/app). */
  readonly dir?: string;
  /** The sign-in with the identity provider (config.dashboardOidc); null or absent: none. */
  readonly oidc?: DashboardOidcConfig | null;
}

export async function registerDashboard(
  app: FastifyInstance,
  options: DashboardOptions = {},
): Promise<void> {
  const root = options.dir ?? DASHBOARD_DIR;
  const oidc = options.oidc ?? null;
  const settings: DashboardSettings = {
    oidc:
      oidc === null
        ? null
        : {
            issuer: oidc.issuer,
            clientId: oidc.clientId,
            scopes: oidc.scopes,
            audience: oidc.audience,
            providerName: oidc.providerName,
          },
  };
  const providerOrigins: ProviderOrigins | null =
    oidc === null
      ? null
      : createProviderOrigins(oidc.issuer, {
          onError: (error) =>
            app.log.warn(
              { err: { message: error.message } },
              'the identity provider discovery failed; the dashboard allows its issuer only',
            ),
        });
  await app.register((dashboard, _opts, done) => {
    void dashboard.register(fastifyStatic, { root, serve: false, preCompressed: true });
    dashboard.addHook('onSend', async (_request, reply, payload) => {
      const origins = providerOrigins === null ? [] : await providerOrigins.current();
      reply.header('content-security-policy', contentSecurityPolicy(origins));
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      return payload;
    });
    const page = (reply: FastifyReply) => sendIndex(reply, root);
    dashboard.get('/app', { schema: { hide: true } }, (_request, reply) => page(reply));
    dashboard.get<{ Params: { '*': string } }>(
      '/app/*',
      { schema: { hide: true } },
      (request, reply) => {
        const path = request.params['*'];
        // The build's files (web/vite.config.ts `assetsDir`; not `assets`, a page of the app).
        if (path.startsWith(`${DASHBOARD_FILES_DIR}/`)) {
          return reply.sendFile(path, root, { immutable: true, maxAge: '365d' });
        }
        if (path === 'config.json') {
          return reply.header('cache-control', 'no-cache').send(settings);
        }
        return page(reply);
      },
    );
    done();
  });
}

async function sendIndex(reply: FastifyReply, root: string): Promise<FastifyReply> {
  let html: string;
  try {
    html = await readFile(join(root, 'index.html'), 'utf8');
  } catch {
    return reply
      .code(503)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(NOT_BUILT);
  }
  return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
}
