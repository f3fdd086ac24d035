/**
 * A site that nikto reports several items of ONE test for, at one URL, which differ only in what
 * they name: three uncommon headers (nikto test 999100) and two cookies without the httponly flag
 * (999960) on `/`, besides the missing X-Frame-Options header and a robots.txt with entries. The
 * deliberately vulnerable test app gives nikto one item only (its missing X-Frame-Options), so the
 * real nikto tests scan this site too, to show that no two different items are merged into one
 * finding. Listens on 127.0.0.2 (a scan's target, as the vulnerable app), on a free port. It
 * records the Cookie and User-Agent of every request, to show that a scan's `config` reaches it.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll } from 'vitest';

/** The headers nikto calls uncommon (its db_headers does not know them). */
export const NIKTO_SITE_HEADERS = ['x-backend-node', 'x-request-trace', 'x-shop-tier'] as const;
/** The cookies set without HttpOnly. */
export const NIKTO_SITE_COOKIES = ['session', 'cart'] as const;

/** What one request to the site carried. */
export interface NiktoSiteRequest {
  readonly cookie: string | null;
  readonly userAgent: string | null;
}

function siteServer(received: NiktoSiteRequest[]): Server {
  return createServer((request, response) => {
    received.push({
      cookie: request.headers.cookie ?? null,
      userAgent: request.headers['user-agent'] ?? null,
    });
    const common = {
      'x-backend-node': 'b1',
      'x-request-trace': 'on',
      'x-shop-tier': 'gold',
      'set-cookie': NIKTO_SITE_COOKIES.map((name) => `${name}=1; Path=/`),
    };
    if (request.url === '/robots.txt') {
      const body = 'User-agent: *\nDisallow: /private/\nDisallow: /backup/\n';
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
      response.end(body);
      return;
    }
    const found = request.url === '/';
    const body = found ? '<!doctype html><html><body>shop</body></html>' : 'not found';
    response.writeHead(found ? 200 : 404, {
      ...common,
      'content-type': 'text/html',
      'content-length': body.length,
    });
    response.end(body);
  });
}

/**
 * The site for the whole test file; read `url` (`http://127.0.0.2:<port>/`) inside tests, and
 * `received` (every request so far, oldest first; the caller may empty it).
 */
export function useNiktoSite(): { readonly url: string; readonly received: NiktoSiteRequest[] } {
  const received: NiktoSiteRequest[] = [];
  const server = siteServer(received);
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') {
      throw new Error('the nikto site has no TCP address');
    }
    url = `http://127.0.0.2:${address.port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    received,
    get url() {
      if (url === '') {
        throw new Error('useNiktoSite: the site exists only inside tests and hooks');
      }
      return url;
    },
  };
}
