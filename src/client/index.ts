/**
 * The typed Rampart client: openapi-fetch over the types generated from the served OpenAPI
 * document (schema.ts, `npm run client:generate`). It sends the credentials of a profile (an API
 * key as X-API-Key, or a dashboard token as a bearer token) and throws RampartApiError for every
 * answer that is not a 2xx, so a call either gives the answer's data or throws.
 *
 * Imports nothing of the service (test/architecture.test.ts): usable in Node 20 and in a browser.
 */
import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import { apiErrorFrom, apiErrorOf } from './errors.js';
import type { components, operations, paths } from './schema.js';

export {
  parseRetryAfter,
  RampartApiError,
  type RampartErrorCode,
  UNEXPECTED_RESPONSE,
} from './errors.js';
export type { components, operations, paths };

/** Where the service is and who calls it: what a CLI profile or the dashboard holds. */
export type RampartProfile = {
  /** The service's base URL, e.g. `https://rampart.example.com` (http: or https:). */
  readonly baseUrl: string;
} & (
  | { readonly apiKey: string; readonly token?: never }
  | { readonly token: string; readonly apiKey?: never }
  /** No credentials: the public routes only (health, readiness, the OpenAPI document). */
  | { readonly apiKey?: never; readonly token?: never }
);

export type RampartClientOptions = RampartProfile & {
  /** The fetch to call (defaults to the global fetch): tests, proxies, retries. */
  readonly fetch?: ClientOptions['fetch'];
};

/** The openapi-fetch client over Rampart's paths; failed calls throw RampartApiError. */
export type RampartClient = Client<paths>;

/** A named schema of the document, e.g. `Schema<'ErrorEnvelope'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** Turns every answer that is not a 2xx into a thrown RampartApiError. */
const throwOnError: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) {
      throw await apiErrorFrom(response);
    }
    return undefined;
  },
};

function credentialHeaders(options: RampartProfile): Record<string, string> {
  const { apiKey, token } = options as { apiKey?: unknown; token?: unknown };
  if (apiKey !== undefined && token !== undefined) {
    throw new TypeError('createRampartClient: give apiKey or token, not both');
  }
  if (apiKey !== undefined) {
    if (typeof apiKey !== 'string' || apiKey === '') {
      throw new TypeError('createRampartClient: apiKey must be a non-empty string');
    }
    return { 'X-API-Key': apiKey };
  }
  if (token !== undefined) {
    if (typeof token !== 'string' || token === '') {
      throw new TypeError('createRampartClient: token must be a non-empty string');
    }
    return { Authorization: `Bearer ${token}` };
  }
  return {};
}

function checkedBaseUrl(baseUrl: unknown): string {
  let url: URL;
  try {
    url = new URL(String(baseUrl));
  } catch {
    throw new TypeError('createRampartClient: baseUrl must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError('createRampartClient: baseUrl must be an absolute http(s) URL');
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * A client for one service and one set of credentials:
 *
 *     const rampart = createRampartClient({ baseUrl, apiKey });
 *     const { scan } = await unwrap(rampart.GET('/api/v1/scans/{scanId}', {
 *       params: { path: { scanId } },
 *     }));
 */
export function createRampartClient(options: RampartClientOptions): RampartClient {
  const client = createClient<paths>({
    baseUrl: checkedBaseUrl(options.baseUrl),
    headers: credentialHeaders(options),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use(throwOnError);
  return client;
}

/**
 * The data of a call's answer. A failed call has already thrown RampartApiError; this only
 * removes openapi-fetch's error branch from the type.
 */
export async function unwrap<Data>(
  call: Promise<{ data?: Data; error?: unknown; response: Response }>,
): Promise<Data> {
  const result = await call;
  if (result.error !== undefined) {
    const { response } = result;
    throw apiErrorOf(response.status, response.headers, result.error, response.statusText);
  }
  return result.data as Data;
}
