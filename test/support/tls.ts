/**
 * TLS material and a real HTTPS receiver for webhook tests. Deliveries are HTTPS only, so tests
 * need a server with a certificate the client trusts:
 *
 * - `readTestTls()` reads test/fixtures/tls (made by generate.sh): a test CA, a server certificate
 *   it signed for 127.0.0.1, ::1 and localhost, and a self-signed certificate no one trusts.
 * - `startHttpsReceiver()` listens on 127.0.0.1 (or ::1), port 0, and records every request with
 *   its raw body bytes, so a test can check a signature over exactly what arrived.
 *
 * Trusting the test CA: pass `ca` to the webhook client in process (`createWebhookClient({ ca })`),
 * or start a separate service process with `NODE_EXTRA_CA_CERTS=<caPath>` in its environment; Node
 * reads that variable only at start-up, so setting it in a running test process has no effect.
 *
 * @example
 *   const receiver = await startHttpsReceiver();
 *   receiver.setStatus(500); // every request now gets 500
 *   // … deliver to receiver.url …
 *   const [delivery] = await receiver.waitForRequests(1);
 *   await receiver.close();
 */
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

const FIXTURES = new URL('../fixtures/tls/', import.meta.url);

export interface TestTls {
  /** The test CA certificate (PEM): trust it to accept `cert`. */
  readonly ca: Buffer;
  /** Server certificate signed by the CA, for IP:127.0.0.1, IP:::1 and DNS:localhost. */
  readonly cert: Buffer;
  readonly key: Buffer;
  /** Self-signed certificate for the same names, not signed by the test CA. */
  readonly untrustedCert: Buffer;
  readonly untrustedKey: Buffer;
  /** Absolute path of ca.pem, for `NODE_EXTRA_CA_CERTS` of a child process. */
  readonly caPath: string;
}

let cached: TestTls | undefined;

/** Reads the TLS fixtures of test/fixtures/tls (once per process). */
export function readTestTls(): TestTls {
  if (cached === undefined) {
    const read = (name: string) => readFileSync(new URL(name, FIXTURES));
    cached = {
      ca: read('ca.pem'),
      cert: read('server.pem'),
      key: read('server-key.pem'),
      untrustedCert: read('untrusted.pem'),
      untrustedKey: read('untrusted-key.pem'),
      caPath: fileURLToPath(new URL('ca.pem', FIXTURES)),
    };
  }
  return cached;
}

/** One request as the receiver saw it. */
export interface ReceivedRequest {
  readonly method: string;
  /** Path and query, e.g. `/hooks/a?x=1`. */
  readonly url: string;
  /** Node's parsed headers: names lower-cased, values as sent. */
  readonly headers: IncomingHttpHeaders;
  /** The body bytes exactly as received, never decoded. */
  readonly body: Buffer;
  /** `Date.now()` once the whole body had arrived. */
  readonly receivedAt: number;
}

/**
 * Answers one request. Called after the whole request body has been read and recorded; it owns
 * `res` and must end it (or deliberately never answer, to test timeouts). A throw or rejection
 * answers 500 when nothing has been sent yet, else destroys the connection.
 */
export type ReceiverHandler = (
  request: ReceivedRequest,
  res: ServerResponse,
  req: IncomingMessage,
) => void | Promise<void>;

export interface HttpsReceiverOptions {
  /** Address to listen on; default 127.0.0.1. Both are covered by the server certificate. */
  readonly host?: '127.0.0.1' | '::1';
  /** Serve the self-signed untrusted certificate instead of the CA-signed one. */
  readonly untrusted?: boolean;
  /** Port to listen on; default an ephemeral one (a port below 1024 needs root). */
  readonly port?: number;
}

export interface HttpsReceiver {
  /** `https://127.0.0.1:<port>/` (or `https://[::1]:<port>/`). */
  readonly url: string;
  readonly port: number;
  /** Every request received so far, in arrival order. The array is live: it grows in place. */
  readonly requests: ReceivedRequest[];
  /** TCP connections accepted so far, counted before the TLS handshake (so refused ones count). */
  readonly connections: number;
  /** From now on answer every request with `statusCode` and an empty body. */
  setStatus(statusCode: number): void;
  /** From now on answer every request with `handler`. */
  setHandler(handler: ReceiverHandler): void;
  /** Resolves with the requests once at least `count` have arrived; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** Stops listening and destroys every open connection, including ones a handler never answered. */
  close(): Promise<void>;
}

/** A handler answering `statusCode` with an empty body. */
export function answerWith(statusCode: number): ReceiverHandler {
  return (_request, res) => {
    res.writeHead(statusCode, { 'content-length': '0' });
    res.end();
  };
}

/**
 * Starts a real HTTPS server on an ephemeral port that records every request. `handler` answers
 * them (default: 200 with an empty body); replace it at runtime with `setStatus` or `setHandler`.
 */
export async function startHttpsReceiver(
  handler: ReceiverHandler = answerWith(200),
  options: HttpsReceiverOptions = {},
): Promise<HttpsReceiver> {
  const tls = readTestTls();
  const host = options.host ?? '127.0.0.1';
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  let current = handler;
  let connections = 0;

  const server = createServer(
    options.untrusted === true
      ? { cert: tls.untrustedCert, key: tls.untrustedKey }
      : { cert: tls.cert, key: tls.key },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('error', () => res.destroy());
      req.on('end', () => {
        const request: ReceivedRequest = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks),
          receivedAt: Date.now(),
        };
        requests.push(request);
        for (const wake of waiters) {
          wake();
        }
        Promise.resolve()
          .then(() => current(request, res, req))
          .catch(() => {
            if (res.headersSent) {
              res.destroy();
            } else {
              res.writeHead(500).end();
            }
          });
      });
    },
  );
  // 'connection' fires on the raw TCP socket, before TLS: a refused certificate still counts, and a
  // client that was stopped before connecting leaves the count at 0.
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // Handshakes a client aborts (untrusted certificate) are expected, not test failures.
  server.on('tlsClientError', () => {});

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: host === '::1' ? `https://[::1]:${port}/` : `https://${host}:${port}/`,
    port,
    requests,
    get connections() {
      return connections;
    },
    setStatus(statusCode) {
      current = answerWith(statusCode);
    },
    setHandler(next) {
      current = next;
    },
    waitForRequests(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(requests.slice());
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`expected ${count} requests within ${timeoutMs} ms, got ${requests.length}`),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) {
          socket.destroy();
        }
      });
    },
  };
}
