/**
 * The origins a dashboard page talks to while signing in with the identity provider: the issuer's
 * (discovery) and its token endpoint's, which need not be the same (a provider may serve tokens
 * from another host). The page's Content-Security-Policy allows connections to these and no
 * others. They come from the provider's discovery document, fetched when a page is first served
 * and kept for an hour; while the provider cannot be reached, the issuer's origin alone is allowed
 * (the sign-in then fails in the browser with a message) and the document is asked for again
 * after 30 s.
 */

const KEEP_MS = 60 * 60 * 1000;
const RETRY_MS = 30 * 1000;
const TIMEOUT_MS = 5000;

/**
 * The origins of a discovery document for `issuer`: the issuer's first, then the token endpoint's.
 * Throws when the document is not the issuer's or names a token endpoint that is not https:.
 */
export function providerOriginsOf(issuer: string, metadata: unknown): string[] {
  const fields = (typeof metadata === 'object' && metadata !== null ? metadata : {}) as Record<
    string,
    unknown
  >;
  if (fields.issuer !== issuer) {
    throw new Error(`the discovery document names issuer ${JSON.stringify(fields.issuer)}`);
  }
  const endpoint =
    typeof fields.token_endpoint === 'string' ? parseUrl(fields.token_endpoint) : null;
  if (endpoint === null || endpoint.protocol !== 'https:') {
    throw new Error('the discovery document has no https: token_endpoint');
  }
  return [...new Set([new URL(issuer).origin, endpoint.origin])];
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

export interface ProviderOrigins {
  /** The origins to allow now (never rejects). */
  current(): Promise<readonly string[]>;
}

export function createProviderOrigins(
  issuer: string,
  options: { onError?: (error: Error) => void; now?: () => number } = {},
): ProviderOrigins {
  const now = options.now ?? Date.now;
  const fallback = [new URL(issuer).origin];
  let known: { origins: readonly string[]; until: number } | null = null;
  let pending: Promise<readonly string[]> | null = null;

  const discover = async (): Promise<readonly string[]> => {
    try {
      const response = await fetch(
        `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
        {
          headers: { accept: 'application/json' },
          redirect: 'error',
          signal: AbortSignal.timeout(TIMEOUT_MS),
        },
      );
      if (!response.ok) {
        throw new Error(`the discovery document answered HTTP ${response.status}`);
      }
      const origins = providerOriginsOf(issuer, await response.json());
      known = { origins, until: now() + KEEP_MS };
      return origins;
    } catch (error) {
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
      known = { origins: fallback, until: now() + RETRY_MS };
      return fallback;
    } finally {
      pending = null;
    }
  };

  return {
    current() {
      if (known !== null && known.until > now()) {
        return Promise.resolve(known.origins);
      }
      pending ??= discover();
      return pending;
    },
  };
}
