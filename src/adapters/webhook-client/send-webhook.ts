/**
 * The outgoing HTTPS client of webhook deliveries and scan callbacks: one POST per attempt, with
 * the contract's failure rules (specification, Delivery rules; decisions.md, Webhooks and events).
 *
 * SSRF protection, while `allowPrivate` (ALLOW_PRIVATE_WEBHOOKS) is off:
 * - Names are resolved by the Agent's own `connect.lookup`, which refuses the connection when ANY
 *   address of the answer lies in a refused range. The check and the connect use the same answer,
 *   so a name that rebinds to 127.0.0.1 between creation and delivery is caught at delivery.
 * - Node never calls `lookup` for an IP-literal host, so literal hosts are checked before sending,
 *   after WHATWG URL normalization (`0x7f.1` and `2130706433` are 127.0.0.1) and the same URL is
 *   handed to undici, so what was checked is what is connected to.
 * - Redirects are never followed: undici's `request()` does not follow them, and a 3xx is a failed
 *   attempt. (`fetch` would follow them, to hosts never checked.)
 *
 * Outcomes never throw: every network failure is a `WebhookResponse` with `statusCode` 0.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { type RefusedRangeName, refusedRangeOf } from '../../domain/targets/refused-ranges.js';
import type { LookupAddresses } from '../dns/resolve-target.js';

export interface WebhookRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  /** Sent as its UTF-8 bytes, exactly: sign this very string. */
  readonly body: string;
}

export interface WebhookResponse {
  /** HTTP status; 0 when there was no complete HTTP answer (network error, timeout, TLS, blocked address). */
  readonly statusCode: number;
  /** True for a 2xx status. */
  readonly success: boolean;
  /** Wall time of the whole attempt, in whole milliseconds. */
  readonly responseTimeMs: number;
  /** Why the attempt failed, short and free of secrets; null on success. */
  readonly error: string | null;
}

export interface WebhookClientOptions {
  /** Deadline of the whole attempt: connect, TLS, headers and body (WEBHOOK_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** Deliver into loopback, private, link-local and metadata ranges (ALLOW_PRIVATE_WEBHOOKS). */
  readonly allowPrivate: boolean;
  /** Resolves a name to all its addresses; default the system resolver (`getaddrinfo`). */
  readonly lookup?: LookupAddresses;
  /** How much of a response body is read before the rest is discarded; default 64 KiB. */
  readonly maxResponseBytes?: number;
  /**
   * CA certificates to trust INSTEAD of Node's store (tests, with the test CA). In production leave
   * it unset: Node's store plus NODE_EXTRA_CA_CERTS decide.
   */
  readonly ca?: string | Buffer;
}

export interface WebhookClient {
  /** POSTs one attempt. Never throws: failures are in the answer. */
  send(request: WebhookRequest): Promise<WebhookResponse>;
  /** Closes pooled connections; waits for attempts in flight (each bounded by `timeoutMs`). */
  close(): Promise<void>;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

const BLOCKED_CODE = 'ERR_WEBHOOK_BLOCKED_ADDRESS';
const DNS_CODE = 'ERR_WEBHOOK_DNS';

/** An error whose message is already the short text recorded for the attempt. */
class DeliveryError extends Error {
  constructor(
    message: string,
    readonly code: typeof BLOCKED_CODE | typeof DNS_CODE,
  ) {
    super(message);
  }
}

function blockedMessage(address: string, range: RefusedRangeName, host?: string): string {
  const origin = host === undefined ? '' : `, resolved from ${host}`;
  return `blocked address ${address} (${range}${origin}); set ALLOW_PRIVATE_WEBHOOKS to allow it`;
}

const systemLookup: LookupAddresses = async (host) => {
  const answers = await dnsLookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
};

/** The DNS failure text of a resolver error. */
function dnsFailure(host: string, error: unknown): DeliveryError {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const text =
    code === undefined || code === 'ENOTFOUND' || code === 'ENODATA' || code === 'EAI_NONAME'
      ? `DNS: ${host} does not resolve`
      : `DNS: ${host} could not be resolved (${code})`;
  return new DeliveryError(text, DNS_CODE);
}

export interface GuardedLookupOptions {
  readonly allowPrivate: boolean;
  readonly lookup?: LookupAddresses;
}

/**
 * A `net` lookup function for the Agent's connect options: resolves with `options.lookup` and,
 * unless `allowPrivate`, refuses the whole answer when any address is in a refused range (a client
 * may connect to any of them). Supports both forms Node uses: `all: true` (Node 20 with
 * autoSelectFamily, the default) calls back with every `{ address, family }`; otherwise with the
 * first address and its family. Exported for tests of the single-address form.
 *
 * @example createGuardedLookup({ allowPrivate: false })('localhost', { all: true }, cb)
 *   // cb(Error('blocked address 127.0.0.1 (loopback, resolved from localhost); …'))
 */
export function createGuardedLookup(options: GuardedLookupOptions): LookupFunction {
  const resolve = options.lookup ?? systemLookup;
  return (host: string, lookupOptions: LookupOptions, callback) => {
    const fail = (error: NodeJS.ErrnoException) => callback(error, '', 0);
    resolve(host).then(
      (addresses) => {
        const family = lookupOptions.family;
        const wanted = family === 4 || family === 6 || family === 'IPv4' || family === 'IPv6';
        const answers: LookupAddress[] = [];
        for (const address of addresses) {
          const version = isIP(address);
          // A resolver answer that is not an address would be judged by nothing: refuse it.
          if (version === 0) {
            fail(new DeliveryError(`DNS: ${host} resolved to an invalid address`, DNS_CODE));
            return;
          }
          const range = options.allowPrivate ? null : refusedRangeOf(address);
          if (range !== null) {
            fail(new DeliveryError(blockedMessage(address, range, host), BLOCKED_CODE));
            return;
          }
          if (!wanted || version === family || `IPv${version}` === family) {
            answers.push({ address, family: version });
          }
        }
        const first = answers[0];
        if (first === undefined) {
          fail(dnsFailure(host, undefined));
        } else if (lookupOptions.all === true) {
          callback(null, answers);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: unknown) => fail(dnsFailure(host, error)),
    );
  };
}

/** Node's certificate verification codes (X509_V_ERR_* without the prefix) and TLS error codes. */
const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REJECTED',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

const NETWORK_MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the receiver',
  EPIPE: 'connection closed by the receiver',
  UND_ERR_SOCKET: 'connection closed by the receiver',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  UND_ERR_HEADERS_OVERFLOW: 'response headers too large',
  HPE_INVALID_CONSTANT: 'invalid HTTP response',
};

const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The error and everything it wraps (`cause`, and `errors` of an AggregateError from happy eyeballs). */
function errorChain(error: unknown): Array<Error & { code?: unknown }> {
  const chain: Array<Error & { code?: unknown }> = [];
  const pending: unknown[] = [error];
  while (pending.length > 0 && chain.length < 20) {
    const next = pending.shift();
    if (!(next instanceof Error)) {
      continue;
    }
    chain.push(next);
    pending.push(next.cause);
    if (next instanceof AggregateError) {
      pending.push(...next.errors);
    }
  }
  return chain;
}

/** The short `error` text of a failed attempt. */
function describeFailure(error: unknown, timeoutMs: number): string {
  const chain = errorChain(error);
  for (const item of chain) {
    if (item instanceof DeliveryError) {
      return item.message;
    }
  }
  for (const item of chain) {
    const code = typeof item.code === 'string' ? item.code : '';
    if (TIMEOUT_CODES.has(code)) {
      return `timeout after ${timeoutMs} ms`;
    }
    if (TLS_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) {
      return `TLS: ${item.message}`;
    }
    const known = NETWORK_MESSAGES[code];
    if (known !== undefined) {
      return known;
    }
  }
  const first = chain[0];
  const text = first === undefined ? String(error) : first.message;
  return `request failed: ${text.slice(0, 200)}`;
}

type ResponseBody = AsyncIterable<Uint8Array> & { destroy(): unknown };

/**
 * Reads the response body up to `cap` bytes and throws it away: only the status counts, and a
 * response is never stored (a stored body would turn a blind SSRF into a read). Beyond the cap the
 * stream is destroyed, which closes the connection instead of downloading an endless body.
 */
async function discardBody(body: ResponseBody, cap: number): Promise<void> {
  let received = 0;
  if (cap <= 0) {
    body.destroy();
    return;
  }
  for await (const chunk of body) {
    received += chunk.byteLength;
    if (received >= cap) {
      body.destroy();
      return;
    }
  }
}

/** How far the attempt got: a failure after the headers says which status had arrived. */
interface Progress {
  statusCode: number | null;
}

/**
 * Creates the webhook client: one undici Agent (keep-alive pooling) whose connect-time lookup
 * enforces the refused ranges. `close()` it at shutdown.
 *
 * @example
 *   const client = createWebhookClient({ timeoutMs: 30_000, allowPrivate: false });
 *   await client.send({ url, headers, body }); // { statusCode: 200, success: true, … }
 */
export function createWebhookClient(options: WebhookClientOptions): WebhookClient {
  const { timeoutMs, allowPrivate } = options;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const agent = new Agent({
    connect: {
      lookup: createGuardedLookup({ allowPrivate, lookup: options.lookup }),
      timeout: timeoutMs,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    },
    // undici's per-phase defaults are 300 s; the AbortSignal below is the real deadline, these
    // only make sure no phase can outlast it.
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  async function attempt(
    target: URL,
    webhookRequest: WebhookRequest,
    signal: AbortSignal,
    progress: Progress,
  ): Promise<{ statusCode: number; success: boolean; error: string | null }> {
    const response = await request(target, {
      dispatcher: agent,
      method: 'POST',
      headers: webhookRequest.headers,
      body: webhookRequest.body,
      signal,
    });
    progress.statusCode = response.statusCode;
    await discardBody(response.body, maxResponseBytes);
    const { statusCode } = response;
    if (statusCode >= 200 && statusCode < 300) {
      return { statusCode, success: true, error: null };
    }
    const note = statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : '';
    return { statusCode, success: false, error: `HTTP ${statusCode}${note}` };
  }

  async function send(webhookRequest: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failure = (error: string): WebhookResponse => ({
      statusCode: 0,
      success: false,
      responseTimeMs: elapsed(),
      error,
    });

    let target: URL;
    try {
      target = new URL(webhookRequest.url);
    } catch {
      return failure('invalid URL');
    }
    if (target.protocol !== 'https:') {
      return failure('only https URLs are delivered');
    }
    // URL keeps IPv6 literals in brackets; isIP and the range table want them bare.
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!allowPrivate && isIP(host) !== 0) {
      const range = refusedRangeOf(host);
      if (range !== null) {
        return failure(blockedMessage(host, range));
      }
    }

    const controller = new AbortController();
    // The abort tells undici to stop (it then never writes the request, or drops the body). The
    // race is what ends the attempt on time: while a connection is still being made (a resolver or
    // a TCP handshake that hangs), undici settles only at its own connect timeout, which fires up
    // to a second late.
    const deadline = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), {
        once: true,
      });
    });
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const progress: Progress = { statusCode: null };
    const running = attempt(target, webhookRequest, controller.signal, progress);
    // After the deadline, the attempt still settles (rejected) in the background; nothing waits.
    running.catch(() => {});
    try {
      const outcome = await Promise.race([running, deadline]);
      return { ...outcome, responseTimeMs: elapsed() };
    } catch (error) {
      const reason = controller.signal.aborted
        ? `timeout after ${timeoutMs} ms`
        : describeFailure(error, timeoutMs);
      // Headers came but the body did not finish: still no complete answer, so statusCode stays 0
      // (decisions.md: a network failure or timeout is recorded with statusCode 0), and the text
      // keeps the status for whoever reads the delivery log.
      const where =
        progress.statusCode === null
          ? ''
          : ` (HTTP ${progress.statusCode} received, body incomplete)`;
      return failure(`${reason}${where}`);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    send,
    close: () => agent.close(),
  };
}
