/**
 * A DELIBERATELY VULNERABLE web application, for tests only: real scanners (sqlmap, wapiti) are
 * pointed at it and must find what was planted. Never import it from src/, never listen beyond
 * 127.0.0.2 (a loopback address that is not the service's own 127.0.0.1, which the scanner egress
 * rules refuse).
 *
 * Pages:
 * - `/`              an HTML index linking to both pages below (and to `/auth/`), with a GET
 *                    form for each, so crawlers find them;
 * - `/search?q=`     PLANTED SQL INJECTION: `q` is concatenated into
 *                    `SELECT name, price FROM products WHERE name = '<q>'`, run against an
 *                    in-memory PGlite; rows come back as HTML, SQL errors as a 500 page carrying
 *                    the error text (which helps error-based detection);
 * - `/hello?name=`   PLANTED REFLECTED XSS: `name` is written into the HTML unescaped (no SQL);
 * - anything else    404.
 * `setFixed(flaw, true)` switches one of the two off on these pages, as a fix deployed between two
 * scans would (`xss`: `/hello` escapes its input; `sqli`: `/search` binds `q` as a parameter);
 * `setFixed(flaw, false)` plants it again (issue 23: rescans that see a flaw fixed and back).
 *
 * Behind a login, under `/auth/` (issue 21): the same two planted pages, reachable only with the
 * session cookie the login sets, and a page that changes the app when visited:
 * - `/auth/login`    GET: a login form (POST, `user` and `password`); POST with `admin` /
 *                    `hunter2`: sets the cookie `session=<random>` (HttpOnly, path `/auth/`) and
 *                    redirects to `/auth/`; anything else: the form again, 200;
 * - `/auth/`         the index of the pages below (a link to the reset page included);
 * - `/auth/search?q=`, `/auth/hello?name=`  the same PLANTED SQL INJECTION and XSS as above, as
 *                    long as the app has not been reset; after a reset they escape their input
 *                    (the "hardened mode" a crawler switched a real app into, issue 21);
 * - `/auth/reset`    records the visit (`resetVisits`) and resets the app to its hardened mode.
 * Without the cookie every `/auth/` page but the login redirects (302) to `/auth/login`.
 * `login()` answers a fresh session cookie (`session=<value>`) as a browser would get it.
 * `/_visits` (linked from nowhere) answers `{"reset": <visits>}`, for a test whose app runs in a
 * process of its own (`loginTo` and `resetVisitsOf` below read it over HTTP).
 *
 * With `elsewhere` (another server's origin, `http://127.0.0.1:<port>`), the app also sends its
 * visitors there, as a site a tenant controls would send a scanner: the index links to
 * `<elsewhere>/linked?id=1`, to `/away?id=1` (a 302 redirect to `<elsewhere>/landed?id=1`) and to
 * `/refresh?id=1` (a meta refresh to `<elsewhere>/refreshed?id=1`), and a search that finds no row
 * answers with a 302 redirect to `<elsewhere>/search?q=<q>`. Without it, none of this exists.
 *
 * The query runs through PGlite's extended protocol, so stacked queries (`'; SELECT …`) fail:
 * sqlmap finds boolean-blind, error-based, UNION and time-based injection here, not stacked. Keep
 * time-based tests (`T`) out of fast tests: PGlite runs in this process, and `pg_sleep` holds it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';

export interface VulnerableApp {
  /** `http://127.0.0.2:<port>/` */
  readonly url: string;
  /** Requests `/auth/reset` has had (with or without a session). */
  readonly resetVisits?: number;
  /** Logs in through the form; answers the session cookie's name and value. */
  login?(): Promise<{ readonly name: string; readonly value: string }>;
  /** Switches a planted flaw of the public pages off (`true`) or on again (`false`). */
  setFixed?(flaw: PlantedFlaw, fixed: boolean): void;
  close(): Promise<void>;
}

/** The flaws of the public pages: `/hello`'s reflected XSS and `/search`'s SQL injection. */
export type PlantedFlaw = 'xss' | 'sqli';

/** The login the form takes (the seeded `users` row). */
export const VULNERABLE_LOGIN = { user: 'admin', password: 'hunter2' } as const;

/** The index behind the login. */
const authIndex = `<!doctype html>
<html><head><title>Members' shop (test fixture)</title></head>
<body>
<h1>Members' shop</h1>
<ul>
  <li><a href="/auth/search?q=apple">Search products</a></li>
  <li><a href="/auth/hello?name=world">Say hello</a></li>
  <li><a href="/auth/reset">Reset the shop</a></li>
</ul>
<form action="/auth/search" method="get"><input type="text" name="q" value="apple"><input type="submit" value="Search"></form>
<form action="/auth/hello" method="get"><input type="text" name="name" value="world"><input type="submit" value="Hello"></form>
</body></html>
`;

const loginPage = page(
  'Log in',
  '<h1>Log in</h1>\n<form action="/auth/login" method="post"><input type="text" name="user"><input type="password" name="password"><input type="submit" value="Log in"></form>',
);

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

async function readBody(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) {
    body += String(chunk);
    if (body.length > 10_000) {
      break;
    }
  }
  return body;
}

function sessionOf(request: IncomingMessage): string | null {
  const header = request.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === 'session') {
      return value.join('=');
    }
  }
  return null;
}

const SEED = `
  CREATE TABLE products (id integer PRIMARY KEY, name text NOT NULL, price numeric NOT NULL);
  INSERT INTO products VALUES (1, 'apple', 1.20), (2, 'banana', 0.50), (3, 'cherry', 4.75);
  CREATE TABLE users (id integer PRIMARY KEY, login text NOT NULL, password text NOT NULL);
  INSERT INTO users VALUES (1, 'admin', 'hunter2'), (2, 'alice', 'correct horse');
`;

function page(title: string, body: string): string {
  return `<!doctype html>\n<html><head><title>${title}</title></head><body>\n${body}\n</body></html>\n`;
}

/** The index, with the links to the other server when there is one. */
const index = (elsewhere: string | undefined) => `<!doctype html>
<html><head><title>Vulnerable shop (test fixture)</title></head>
<body>
<h1>Vulnerable shop</h1>
<ul>
  <li><a href="/search?q=apple">Search products</a></li>
  <li><a href="/hello?name=world">Say hello</a></li>
  <li><a href="/auth/">Members only</a></li>
${
  elsewhere === undefined
    ? ''
    : `  <li><a href="${elsewhere}/linked?id=1">Our other shop</a></li>
  <li><a href="/away?id=1">Moved away</a></li>
  <li><a href="/refresh?id=1">Refreshed away</a></li>
`
}</ul>
<form action="/search" method="get"><input type="text" name="q" value="apple"><input type="submit" value="Search"></form>
<form action="/hello" method="get"><input type="text" name="name" value="world"><input type="submit" value="Hello"></form>
</body></html>
`;

function send(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
  });
  response.end(html);
}

export interface VulnerableAppOptions {
  /** Another server's origin (`http://127.0.0.1:<port>`) the app's pages send visitors to. */
  readonly elsewhere?: string;
}

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(302, { location, 'content-length': 0 });
  response.end();
}

/** Starts the app on 127.0.0.2, on a random free port. */
export async function startVulnerableApp(
  options: VulnerableAppOptions = {},
): Promise<VulnerableApp> {
  const { elsewhere } = options;
  const indexPage = index(elsewhere);
  const db = await PGlite.create();
  await db.exec(SEED);

  const sessions = new Set<string>();
  let resetVisits = 0;
  let hardened = false;
  const fixedFlaws = new Set<PlantedFlaw>();

  async function search(response: ServerResponse, q: string, safe: boolean): Promise<void> {
    if (safe) {
      const result = await db.query<{ name: unknown; price: unknown }>(
        'SELECT name, price FROM products WHERE name = $1',
        [q],
      );
      const rows = result.rows.map((row) => `<tr><td>${escapeHtml(String(row.name))}</td></tr>`);
      send(
        response,
        200,
        page('Search', `<h1>Results</h1>\n<table>\n${rows.join('\n')}\n</table>`),
      );
      return;
    }
    // VULNERABLE ON PURPOSE: the parameter is concatenated into the SQL text.
    const sql = `SELECT name, price FROM products WHERE name = '${q}'`;
    try {
      const result = await db.query<{ name: unknown; price: unknown }>(sql);
      if (elsewhere !== undefined && result.rows.length === 0) {
        redirect(response, `${elsewhere}/search?q=${encodeURIComponent(q)}`);
        return;
      }
      const rows = result.rows
        .map((row) => `<tr><td>${String(row.name)}</td><td>${String(row.price)}</td></tr>`)
        .join('\n');
      send(
        response,
        200,
        page(
          'Search',
          `<h1>Results</h1>\n<table>\n<tr><th>name</th><th>price</th></tr>\n${rows}\n</table>`,
        ),
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // VULNERABLE ON PURPOSE: the database error is shown to the client, worded like PHP's
      // pg_query warning, which is what error-based scanners (wapiti's `sql` module) look for.
      send(
        response,
        500,
        page(
          'Database error',
          `<h1>Database error</h1>\n<pre>PostgreSQL query failed: ERROR: ${message}</pre>`,
        ),
      );
    }
  }

  /** The pages under `/auth/` (see the module comment). */
  async function handleAuth(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
  ): Promise<void> {
    if (url.pathname === '/auth/reset') {
      resetVisits += 1;
    }
    if (url.pathname === '/auth/login') {
      if (request.method === 'POST') {
        const form = new URLSearchParams(await readBody(request));
        if (
          form.get('user') === VULNERABLE_LOGIN.user &&
          form.get('password') === VULNERABLE_LOGIN.password
        ) {
          const session = randomBytes(16).toString('hex');
          sessions.add(session);
          response.writeHead(302, {
            location: '/auth/',
            'set-cookie': `session=${session}; Path=/auth/; HttpOnly`,
            'content-length': 0,
          });
          response.end();
          return;
        }
      }
      send(response, 200, loginPage);
      return;
    }
    const session = sessionOf(request);
    if (session === null || !sessions.has(session)) {
      redirect(response, '/auth/login');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(response, 405, page('Method not allowed', '<p>Method not allowed</p>'));
      return;
    }
    if (url.pathname === '/auth/') {
      send(response, 200, authIndex);
      return;
    }
    if (url.pathname === '/auth/reset') {
      hardened = true;
      send(response, 200, page('Reset', '<p>The shop was reset to its safe mode.</p>'));
      return;
    }
    if (url.pathname === '/auth/search') {
      await search(response, url.searchParams.get('q') ?? '', hardened);
      return;
    }
    if (url.pathname === '/auth/hello') {
      const name = url.searchParams.get('name') ?? '';
      // VULNERABLE ON PURPOSE (until reset): reflected without escaping.
      send(response, 200, page('Hello', `<h1>Hello ${hardened ? escapeHtml(name) : name}!</h1>`));
      return;
    }
    send(response, 404, page('Not found', '<p>Not found</p>'));
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.2');
    if (url.pathname === '/_visits') {
      const body = JSON.stringify({ reset: resetVisits });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(body);
      return;
    }
    if (url.pathname === '/auth' || url.pathname.startsWith('/auth/')) {
      await handleAuth(request, response, url);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(response, 405, page('Method not allowed', '<p>Method not allowed</p>'));
      return;
    }
    if (url.pathname === '/') {
      send(response, 200, indexPage);
      return;
    }
    if (url.pathname === '/search') {
      await search(response, url.searchParams.get('q') ?? '', fixedFlaws.has('sqli'));
      return;
    }
    if (url.pathname === '/hello') {
      const name = url.searchParams.get('name') ?? '';
      // VULNERABLE ON PURPOSE (unless fixed): reflected without escaping.
      const shown = fixedFlaws.has('xss') ? escapeHtml(name) : name;
      send(response, 200, page('Hello', `<h1>Hello ${shown}!</h1>`));
      return;
    }
    if (elsewhere !== undefined && url.pathname === '/away') {
      redirect(response, `${elsewhere}/landed?id=1`);
      return;
    }
    if (elsewhere !== undefined && url.pathname === '/refresh') {
      const refresh = `<meta http-equiv="refresh" content="0; url=${elsewhere}/refreshed?id=1">`;
      send(
        response,
        200,
        `<!doctype html>\n<html><head>${refresh}</head><body>moved</body></html>\n`,
      );
      return;
    }
    send(response, 404, page('Not found', '<p>Not found</p>'));
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) {
        send(response, 500, page('Internal error', '<p>Internal error</p>'));
      } else {
        response.destroy();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.2', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closed: Promise<void> | null = null;
  const origin = `http://127.0.0.2:${port}`;
  return {
    url: `${origin}/`,
    get resetVisits() {
      return resetVisits;
    },
    login: () => loginTo(`${origin}/`),
    setFixed(flaw, fixed) {
      if (fixed) {
        fixedFlaws.add(flaw);
      } else {
        fixedFlaws.delete(flaw);
      }
    },
    close() {
      closed ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await db.close();
      })();
      return closed;
    },
  };
}

/** Logs in to the app at `url` through its form; answers the session cookie. */
export async function loginTo(url: string): Promise<{ name: string; value: string }> {
  const answer = await fetch(new URL('/auth/login', url), {
    method: 'POST',
    body: new URLSearchParams(VULNERABLE_LOGIN),
    redirect: 'manual',
  });
  const cookie = /^session=([0-9a-f]+)/.exec(answer.headers.get('set-cookie') ?? '');
  if (cookie?.[1] === undefined) {
    throw new Error(`the login answered ${answer.status} without a session cookie`);
  }
  return { name: 'session', value: cookie[1] };
}

/** Requests the reset page of the app at `url` has had. */
export async function resetVisitsOf(url: string): Promise<number> {
  const answer = await fetch(new URL('/_visits', url));
  return ((await answer.json()) as { reset: number }).reset;
}
