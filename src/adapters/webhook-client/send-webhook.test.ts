/**
 * The webhook client against real HTTPS servers on 127.0.0.1 / ::1 (test CA injected as `ca`).
 * Attack cases from design/platform-research.md 5.2 and 5.3: literal and rebinding SSRF, redirects,
 * slow and endless receivers, untrusted certificates, status classes.
 */
import type { LookupAddress } from 'node:dns';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../../examples/verify-webhook-signature.js';
import {
  answerWith,
  type HttpsReceiver,
  type HttpsReceiverOptions,
  type ReceiverHandler,
  readTestTls,
  startHttpsReceiver,
} from '../../../test/support/tls.js';
import { signWebhookBody } from '../../domain/webhooks/signature.js';
import type { LookupAddresses } from '../dns/resolve-target.js';
import {
  createGuardedLookup,
  createWebhookClient,
  type WebhookClient,
  type WebhookClientOptions,
} from './send-webhook.js';

const tls = readTestTls();
const BODY = '{"event":"webhook.test"}';
const HEADERS = { 'content-type': 'application/json' };
const BLOCKED = /^blocked address .+; set ALLOW_PRIVATE_WEBHOOKS to allow it$/;

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function receiver(
  handler?: ReceiverHandler,
  options?: HttpsReceiverOptions,
): Promise<HttpsReceiver> {
  const started = await startHttpsReceiver(handler, options);
  cleanups.push(() => started.close());
  return started;
}

function client(options: Partial<WebhookClientOptions> = {}): WebhookClient {
  const created = createWebhookClient({
    timeoutMs: 5000,
    allowPrivate: true,
    ca: tls.ca,
    ...options,
  });
  cleanups.push(() => created.close());
  return created;
}

function post(url: string, body = BODY) {
  return { url, headers: HEADERS, body };
}

/** A resolver that must never be asked (literal hosts): the test fails if it is. */
const forbiddenLookup: LookupAddresses = (host) => {
  throw new Error(`lookup(${host}) called for a literal host`);
};

describe('status codes', () => {
  it.each([200, 204, 299])('%i is a success', async (status) => {
    const server = await receiver(answerWith(status));
    const result = await client().send(post(server.url));
    expect(result).toMatchObject({ statusCode: status, success: true, error: null });
    expect(server.requests).toHaveLength(1);
  });

  it.each([301, 302, 307])('%i is a failure and the redirect is not followed', async (status) => {
    const target = await receiver();
    const server = await receiver((_request, res) => {
      res.writeHead(status, { location: target.url, 'content-length': '0' }).end();
    });
    const result = await client().send(post(server.url));
    expect(result).toMatchObject({
      statusCode: status,
      success: false,
      error: `HTTP ${status} (redirects are not followed)`,
    });
    expect(server.requests).toHaveLength(1);
    expect(target.connections).toBe(0);
    expect(target.requests).toHaveLength(0);
  });

  it.each([400, 404, 410, 429, 500, 503])('%i is a failure with its status', async (status) => {
    const server = await receiver(answerWith(status));
    const result = await client().send(post(server.url));
    expect(result).toMatchObject({ statusCode: status, success: false, error: `HTTP ${status}` });
  });

  it('reads a response body and still succeeds', async () => {
    const server = await receiver((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks, got it');
    });
    expect(await client().send(post(server.url))).toMatchObject({ statusCode: 200, success: true });
  });

  it('follows receiver status changes between attempts on a pooled connection', async () => {
    const server = await receiver();
    const webhooks = client();
    expect((await webhooks.send(post(server.url))).success).toBe(true);
    server.setStatus(500);
    expect(await webhooks.send(post(server.url))).toMatchObject({
      statusCode: 500,
      success: false,
    });
    expect(server.requests).toHaveLength(2);
  });
});

describe('the request on the wire', () => {
  it('is a POST carrying the given headers and the exact body bytes', async () => {
    const server = await receiver();
    const body = JSON.stringify({
      event: 'scan.completed',
      data: { name: 'Prüfung ✓ 🚀', note: 'line\u2028separator </script>' },
    });
    const secret = 'whsec_wire';
    const headers = {
      'content-type': 'application/json',
      'x-webhook-signature': signWebhookBody(secret, body),
      'x-webhook-event': 'scan.completed',
      'x-webhook-delivery': 'del-6f1c1c36-3d4b-4c6e-9a55-0d5e1a3e2b10',
      'x-webhook-timestamp': '2026-11-23T10:00:00.000Z',
    };
    const result = await client().send({ url: `${server.url}hooks/rampart?x=1`, headers, body });
    expect(result.success).toBe(true);
    const [received] = server.requests;
    expect(received?.method).toBe('POST');
    expect(received?.url).toBe('/hooks/rampart?x=1');
    expect(received?.headers).toMatchObject(headers);
    expect(received?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(received?.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(
      verifyWebhookSignature(
        received?.body ?? Buffer.alloc(0),
        received?.headers['x-webhook-signature'] as string | undefined,
        secret,
      ),
    ).toBe(true);
  });
});

describe('timeouts', () => {
  const TIMEOUT_MS = 300;
  // Generous upper bound for a loaded CI machine; what matters is that it is nowhere near undici's
  // per-phase defaults of 300 s nor a multiple of the deadline.
  const SLACK_MS = 700;

  async function timed(url: string, options: Partial<WebhookClientOptions> = {}) {
    const started = Date.now();
    const result = await client({ timeoutMs: TIMEOUT_MS, ...options }).send(post(url));
    return { result, wallMs: Date.now() - started };
  }

  it('fails a receiver that never answers at the deadline', async () => {
    const server = await receiver(() => {});
    const { result, wallMs } = await timed(server.url);
    expect(result).toMatchObject({ statusCode: 0, success: false, error: 'timeout after 300 ms' });
    expect(wallMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(wallMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(result.responseTimeMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(result.responseTimeMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  });

  it('fails a server that accepts the connection but never completes the TLS handshake', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const socket of sockets) {
        socket.destroy();
      }
      await new Promise((resolve) => silent.close(resolve));
    });
    const { port } = silent.address() as AddressInfo;
    const { result, wallMs } = await timed(`https://127.0.0.1:${port}/`);
    expect(result).toMatchObject({ statusCode: 0, success: false, error: 'timeout after 300 ms' });
    expect(wallMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(sockets.size).toBe(1);
  });

  it('fails a receiver that sends its headers a few bytes at a time', async () => {
    const server = await receiver((_request, _res, req) => {
      const socket = req.socket;
      const parts = [
        'HTTP/1.1 200 OK\r\n',
        ...Array.from({ length: 100 }, (_, i) => `x-${i}: y\r\n`),
      ];
      const timer = setInterval(() => {
        const part = parts.shift();
        if (part === undefined || socket.destroyed) {
          clearInterval(timer);
        } else {
          socket.write(part);
        }
      }, 20);
      socket.on('close', () => clearInterval(timer));
    });
    const { result, wallMs } = await timed(server.url);
    expect(result).toMatchObject({ statusCode: 0, success: false, error: 'timeout after 300 ms' });
    expect(wallMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  });

  it('cuts a body trickled byte by byte at the deadline of the whole attempt', async () => {
    const server = await receiver((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.flushHeaders();
      // Every byte arrives well within any per-read timeout: only a total deadline stops this.
      const timer = setInterval(() => res.write('x'), 20);
      res.on('close', () => clearInterval(timer));
    });
    const { result, wallMs } = await timed(server.url);
    expect(result).toMatchObject({
      statusCode: 0,
      success: false,
      error: 'timeout after 300 ms (HTTP 200 received, body incomplete)',
    });
    expect(wallMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  });

  it('reads an endless body only up to the cap, and the attempt completes', async () => {
    let sent = 0;
    let closed = false;
    const server = await receiver((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(16 * 1024, 0x61);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) {
          sent += chunk.length;
        }
      };
      res.on('drain', pump);
      res.on('close', () => {
        closed = true;
      });
      pump();
    });
    const started = Date.now();
    const result = await client({ timeoutMs: 5000, maxResponseBytes: 64 * 1024 }).send(
      post(server.url),
    );
    expect(result).toMatchObject({ statusCode: 200, success: true, error: null });
    expect(Date.now() - started).toBeLessThan(2000);
    // The client hung up: the server's writes stop instead of streaming for the whole deadline.
    await expect.poll(() => closed, { timeout: 2000 }).toBe(true);
    expect(sent).toBeLessThan(16 * 1024 * 1024);
  });
});

describe('TLS', () => {
  it('refuses a self-signed certificate not signed by a trusted CA', async () => {
    const server = await receiver(undefined, { untrusted: true });
    const result = await client().send(post(server.url));
    expect(result).toMatchObject({
      statusCode: 0,
      success: false,
      error: 'TLS: self-signed certificate',
    });
    expect(server.connections).toBe(1);
    expect(server.requests).toHaveLength(0);
  });

  it("trusts, without `ca`, what Node's store holds: the CA NODE_EXTRA_CA_CERTS names", async () => {
    // vitest.config.ts adds the test CA to NODE_EXTRA_CA_CERTS before the test processes start,
    // as an operator would for a self-signed receiver; the client adds no trust of its own.
    const server = await receiver();
    const result = await client({ ca: undefined }).send(post(server.url));
    expect(result).toMatchObject({ statusCode: 200, success: true });
    const stranger = await receiver(answerWith(200), { untrusted: true });
    const refused = await client({ ca: undefined }).send(post(stranger.url));
    expect(refused).toMatchObject({ statusCode: 0, success: false });
    expect(stranger.requests).toHaveLength(0);
  });

  it('refuses a certificate issued for another name', async () => {
    const server = await receiver();
    const webhooks = client({ lookup: async () => ['127.0.0.1'] });
    const result = await webhooks.send(post(`https://receiver.example:${server.port}/`));
    expect(result.statusCode).toBe(0);
    expect(result.error).toMatch(/^TLS: Hostname\/IP does not match certificate's altnames/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('with ALLOW_PRIVATE_WEBHOOKS off', () => {
  it.each([
    ['IPv4 loopback', (port: number) => `https://127.0.0.1:${port}/`, '127.0.0.1 (loopback)'],
    ['IPv4-mapped IPv6', (port: number) => `https://[::ffff:127.0.0.1]:${port}/`, '(loopback)'],
    ['hex short form', (port: number) => `https://0x7f.1:${port}/`, '127.0.0.1 (loopback)'],
    ['decimal integer', (port: number) => `https://2130706433:${port}/`, '127.0.0.1 (loopback)'],
    ['percent-encoded', (port: number) => `https://%31%32%37.0.0.1:${port}/`, '127.0.0.1 '],
    ['trailing-dot IPv4', (port: number) => `https://127.0.0.1.:${port}/`, '127.0.0.1 (loopback)'],
  ])('refuses a literal %s without connecting', async (_, url, named) => {
    const server = await receiver();
    const result = await client({ allowPrivate: false, lookup: forbiddenLookup }).send(
      post(url(server.port)),
    );
    expect(result.statusCode).toBe(0);
    expect(result.success).toBe(false);
    expect(result.error).toMatch(BLOCKED);
    expect(result.error).toContain(named);
    expect(server.connections).toBe(0);
  });

  it('refuses https://[::1]:port/ without connecting', async () => {
    const server = await receiver(undefined, { host: '::1' });
    const result = await client({ allowPrivate: false, lookup: forbiddenLookup }).send(
      post(server.url),
    );
    expect(result).toMatchObject({
      statusCode: 0,
      success: false,
      error: 'blocked address ::1 (loopback); set ALLOW_PRIVATE_WEBHOOKS to allow it',
    });
    expect(server.connections).toBe(0);
  });

  it.each([
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 (cloud metadata)'],
    ['https://[fd00:ec2::254]/', 'fd00:ec2::254 (cloud metadata)'],
    ['https://10.0.0.1/', '10.0.0.1 (private)'],
    ['https://100.64.0.1/', '100.64.0.1 (carrier-grade NAT)'],
    ['https://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1 (loopback)'],
    ['https://[2002:7f00:1::]/', '2002:7f00:1:: (loopback)'],
    ['https://0.0.0.0/', '0.0.0.0 (unspecified)'],
  ])('refuses %s', async (url, named) => {
    const result = await client({ allowPrivate: false, lookup: forbiddenLookup }).send(post(url));
    expect(result.statusCode).toBe(0);
    expect(result.error).toBe(`blocked address ${named}; set ALLOW_PRIVATE_WEBHOOKS to allow it`);
  });

  it('refuses a name when any of its addresses is private, without connecting', async () => {
    const server = await receiver();
    const webhooks = client({
      allowPrivate: false,
      lookup: async () => ['203.0.113.5', '127.0.0.1'],
    });
    const result = await webhooks.send(post(`https://mixed.example:${server.port}/`));
    expect(result).toMatchObject({
      statusCode: 0,
      success: false,
      error:
        'blocked address 127.0.0.1 (loopback, resolved from mixed.example); set ALLOW_PRIVATE_WEBHOOKS to allow it',
    });
    expect(server.connections).toBe(0);
  });

  it('refuses a name that rebinds to 127.0.0.1 after passing the check at creation', async () => {
    const server = await receiver();
    let answer = ['203.0.113.5'];
    const lookup: LookupAddresses = async () => answer;
    // Creation-time check (done elsewhere with the same resolver) sees a public address …
    expect(await lookup('rebind.example')).toEqual(['203.0.113.5']);
    // … then the record changes before the delivery.
    answer = ['127.0.0.1'];
    const result = await client({ allowPrivate: false, lookup }).send(
      post(`https://rebind.example:${server.port}/`),
    );
    expect(result.statusCode).toBe(0);
    expect(result.error).toMatch(BLOCKED);
    expect(result.error).toContain('127.0.0.1 (loopback, resolved from rebind.example)');
    expect(server.connections).toBe(0);
  });

  it('resolves the name again at every attempt, also on a pooled client', async () => {
    const server = await receiver();
    let answer = ['127.0.0.1'];
    // allowPrivate is off, so the first attempt is refused; a later public answer would be used.
    const webhooks = client({ allowPrivate: false, lookup: async () => answer });
    const first = await webhooks.send(post(`https://localhost:${server.port}/`));
    expect(first.error).toMatch(BLOCKED);
    answer = ['::1'];
    const second = await webhooks.send(post(`https://localhost:${server.port}/`));
    expect(second.error).toContain('::1 (loopback, resolved from localhost)');
    expect(server.connections).toBe(0);
  });

  it('refuses a name with an IPv6 loopback answer', async () => {
    const result = await client({ allowPrivate: false, lookup: async () => ['::1'] }).send(
      post('https://six.example/'),
    );
    expect(result.error).toContain('blocked address ::1 (loopback, resolved from six.example)');
  });

  it('refuses plain http without connecting', async () => {
    const server = await receiver();
    const result = await client({ allowPrivate: true }).send(
      post(`http://127.0.0.1:${server.port}/`),
    );
    expect(result).toMatchObject({ statusCode: 0, error: 'only https URLs are delivered' });
    expect(server.connections).toBe(0);
  });
});

describe('name resolution failures', () => {
  it('reports a name that does not resolve', async () => {
    const lookup: LookupAddresses = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), {
        code: 'ENOTFOUND',
      });
    };
    const result = await client({ lookup }).send(post('https://nowhere.invalid/'));
    expect(result).toMatchObject({
      statusCode: 0,
      success: false,
      error: 'DNS: nowhere.invalid does not resolve',
    });
  });

  it('reports an empty answer as not resolving', async () => {
    const result = await client({ lookup: async () => [] }).send(post('https://empty.example/'));
    expect(result.error).toBe('DNS: empty.example does not resolve');
  });

  it('reports a resolver failure with its code', async () => {
    const lookup: LookupAddresses = async () => {
      throw Object.assign(new Error('queryA ESERVFAIL'), { code: 'ESERVFAIL' });
    };
    const result = await client({ lookup }).send(post('https://flaky.example/'));
    expect(result.error).toBe('DNS: flaky.example could not be resolved (ESERVFAIL)');
  });

  it('gives up on a resolver that never answers at the deadline', async () => {
    const lookup: LookupAddresses = () => new Promise(() => {});
    const started = Date.now();
    const result = await client({ timeoutMs: 200, lookup }).send(post('https://slow.example/'));
    expect(result).toMatchObject({ statusCode: 0, error: 'timeout after 200 ms' });
    // undici alone would settle only at its connect timeout, up to a second late.
    expect(Date.now() - started).toBeLessThan(700);
  });

  it('uses the system resolver by default (localhost)', async () => {
    const server = await receiver();
    const result = await client({ allowPrivate: false }).send(
      post(`https://localhost:${server.port}/`),
    );
    expect(result.error).toMatch(
      /^blocked address (127\.0\.0\.1|::1) \(loopback, resolved from localhost\)/,
    );
    expect(server.connections).toBe(0);
  });
});

describe('with ALLOW_PRIVATE_WEBHOOKS on', () => {
  it('delivers to 127.0.0.1', async () => {
    const server = await receiver();
    const result = await client({ allowPrivate: true }).send(post(server.url));
    expect(result).toMatchObject({ statusCode: 200, success: true, error: null });
    expect(server.requests).toHaveLength(1);
  });

  it('delivers to [::1]', async () => {
    const server = await receiver(undefined, { host: '::1' });
    const result = await client({ allowPrivate: true }).send(post(server.url));
    expect(result).toMatchObject({ statusCode: 200, success: true });
  });

  it('delivers to a name through the injected resolver (lookup with all: true)', async () => {
    const server = await receiver();
    const asked: string[] = [];
    const lookup: LookupAddresses = async (host) => {
      asked.push(host);
      return ['127.0.0.1'];
    };
    const result = await client({ allowPrivate: true, lookup }).send(
      post(`https://localhost:${server.port}/`),
    );
    expect(result).toMatchObject({ statusCode: 200, success: true });
    expect(asked).toEqual(['localhost']);
  });

  it('reports a closed port as connection refused', async () => {
    const server = await startHttpsReceiver();
    await server.close();
    const result = await client({ allowPrivate: true }).send(post(server.url));
    expect(result).toMatchObject({ statusCode: 0, success: false, error: 'connection refused' });
  });
});

describe('client lifecycle', () => {
  it('measures the attempt in whole milliseconds', async () => {
    const server = await receiver(async (_request, res) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      res.writeHead(204).end();
    });
    const result = await client().send(post(server.url));
    expect(Number.isInteger(result.responseTimeMs)).toBe(true);
    expect(result.responseTimeMs).toBeGreaterThanOrEqual(45);
  });

  it('does not throw after close', async () => {
    const webhooks = createWebhookClient({ timeoutMs: 1000, allowPrivate: true, ca: tls.ca });
    await webhooks.close();
    const result = await webhooks.send(post('https://127.0.0.1:9/'));
    expect(result.statusCode).toBe(0);
    expect(result.error).toMatch(/^request failed: /);
  });

  it('reports an invalid URL', async () => {
    expect((await client().send(post('not a url'))).error).toBe('invalid URL');
  });
});

describe('createGuardedLookup', () => {
  function call(
    lookup: ReturnType<typeof createGuardedLookup>,
    options: { all?: boolean; family?: number },
  ): Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }> {
    return new Promise((resolve) => {
      lookup('host.example', options, (error, address, family) =>
        resolve({ error, address, family }),
      );
    });
  }

  const dual = async () => ['2001:db8::1', '203.0.113.5'];

  it('answers every address with its family when called with all: true', async () => {
    const outcome = await call(createGuardedLookup({ allowPrivate: false, lookup: dual }), {
      all: true,
    });
    expect(outcome.error).toBeNull();
    expect(outcome.address as LookupAddress[]).toEqual([
      { address: '2001:db8::1', family: 6 },
      { address: '203.0.113.5', family: 4 },
    ]);
  });

  it('answers the first address and its family in the single-address form', async () => {
    const outcome = await call(createGuardedLookup({ allowPrivate: false, lookup: dual }), {});
    expect(outcome).toEqual({ error: null, address: '2001:db8::1', family: 6 });
  });

  it('honours a requested family', async () => {
    const outcome = await call(createGuardedLookup({ allowPrivate: false, lookup: dual }), {
      family: 4,
    });
    expect(outcome).toEqual({ error: null, address: '203.0.113.5', family: 4 });
  });

  it.each([{ all: true }, {}])(
    'refuses any private address in either form (%o)',
    async (options) => {
      const lookup = createGuardedLookup({
        allowPrivate: false,
        lookup: async () => ['203.0.113.5', '10.1.2.3'],
      });
      const outcome = await call(lookup, options);
      expect(outcome.error?.message).toBe(
        'blocked address 10.1.2.3 (private, resolved from host.example); set ALLOW_PRIVATE_WEBHOOKS to allow it',
      );
    },
  );

  it('judges a private address of another family than the one requested', async () => {
    const lookup = createGuardedLookup({
      allowPrivate: false,
      lookup: async () => ['203.0.113.5', '::1'],
    });
    expect((await call(lookup, { family: 4 })).error?.message).toMatch(BLOCKED);
  });

  it('passes private addresses when allowed', async () => {
    const lookup = createGuardedLookup({ allowPrivate: true, lookup: async () => ['127.0.0.1'] });
    expect(await call(lookup, {})).toEqual({ error: null, address: '127.0.0.1', family: 4 });
  });

  it('refuses an answer that is not an IP address', async () => {
    const lookup = createGuardedLookup({ allowPrivate: true, lookup: async () => ['localhost'] });
    expect((await call(lookup, { all: true })).error?.message).toBe(
      'DNS: host.example resolved to an invalid address',
    );
  });
});
