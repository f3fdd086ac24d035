/**
 * The dashboard's access to the service: the typed client (src/client) with the session's token,
 * shared through a context. The token is read at each call (a renewed token takes effect without
 * a new client, so pages keep their state). A 401 from any call ends the session (the token
 * expired or was refused), so every page signs out the same way.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import {
  createRampartClient,
  RampartApiError,
  type RampartClient,
  type Schema,
  unwrap,
} from '../../../src/client/index.js';
import type { TokenClaims } from './token-claims.js';

export { RampartApiError, type RampartClient, type Schema, unwrap };

export interface Api {
  readonly client: RampartClient;
  readonly claims: TokenClaims;
  signOut(reason?: string): void;
}

export function createApi(
  tokenOf: () => string,
  claims: TokenClaims,
  signOut: (reason?: string) => void,
): Api {
  const client = createRampartClient({ baseUrl: window.location.origin });
  client.use({
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${tokenOf()}`);
      return request;
    },
    onResponse({ response }) {
      if (response.status === 401) {
        signOut('Your session ended (the token expired or was refused). Sign in again.');
      }
      return undefined;
    },
  });
  return { client, claims, signOut };
}

export const ApiContext = createContext<Api | null>(null);

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (api === null) {
    throw new Error('useApi outside a signed-in page');
  }
  return api;
}

/** The text shown for a failed call: the contract's code and message when it has them. */
export function describeError(error: unknown): string {
  if (error instanceof RampartApiError) {
    return `${error.code}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
