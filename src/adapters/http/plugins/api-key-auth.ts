/**
 * The key pipeline, in decisions.md's order: key (missing, format, unknown, status) → tenant →
 * IP allowlist → rate limit → scope. Routes registered in this context only declare their scope in
 * `config.scope`. A valid dashboard JWT is accepted instead of a key, with all scopes and no
 * per-key rate limit; it counts against its tenant's token budget instead. A 401 becomes 429 when
 * the address has used up its authentication failures (never a request with valid credentials).
 */
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { looksLikeRawKey } from '../../../domain/api-keys/raw-key.js';
import { ApiError } from '../../../domain/errors.js';
import { isAddressAllowed } from '../../../domain/network/ip-allowlist.js';
import { rateLimitExceeded } from '../../../domain/rate-limits/headers.js';
import { perKeyWindows } from '../../../domain/rate-limits/windows.js';
import { authenticateApiKey } from '../../../use-cases/auth/authenticate-api-key.js';
import type { ApiKeyRecord } from '../../../use-cases/ports/api-keys.js';
import type { AppDeps } from '../app-deps.js';
import type { AuthFailureLimiter } from './auth-failures.js';
import { authenticateBearer, bearerToken } from './jwt-auth.js';
import { setRateLimitHeaders } from './rate-limit-reply.js';
import type { TenantTokenBudget } from './tenant-token-budget.js';

const KEY_IN_WRONG_PLACE =
  'Missing API key: API keys are accepted only in the X-API-Key header, not in Authorization or the query string';

function keyInQuery(request: FastifyRequest): boolean {
  const query = request.query as Record<string, unknown> | undefined;
  return Object.keys(query ?? {}).some((name) => /^(api[-_]?key|x-api-key|key)$/i.test(name));
}

export function createApiKeyAuthHook(
  deps: AppDeps,
  failures: AuthFailureLimiter,
  tokenBudget: TenantTokenBudget,
): onRequestAsyncHookHandler {
  const { config, apiKeys, rateLimits, lastUsed } = deps;

  async function admitKey(
    request: FastifyRequest,
    reply: FastifyReply,
    key: ApiKeyRecord,
    tenantSuspended: boolean,
  ) {
    const bucket = `key:${key.rateLimitBucket}`;
    const windows = perKeyWindows({
      perMinute: key.rateLimitPerMinute,
      perHour: key.rateLimitPerHour,
      perDay: key.rateLimitPerDay,
    });
    if (tenantSuspended) {
      setRateLimitHeaders(reply, await rateLimits.peek(bucket, windows));
      throw new ApiError('TENANT_SUSPENDED');
    }
    if (!isAddressAllowed(request.ip, key.allowedIpAddresses)) {
      setRateLimitHeaders(reply, await rateLimits.peek(bucket, windows));
      throw new ApiError('IP_NOT_ALLOWED');
    }
    const decision = await rateLimits.consume(bucket, windows);
    setRateLimitHeaders(reply, decision);
    if (!decision.allowed) {
      deps.metrics.rateLimited('api_key');
      throw rateLimitExceeded(decision);
    }
    const scope = request.routeOptions.config.scope;
    if (scope !== undefined && !key.scopes.includes(scope)) {
      throw new ApiError('INSUFFICIENT_SCOPE', { scope });
    }
    request.auth = { kind: 'api-key', tenantId: key.tenantId, key, admission: decision };
  }

  async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers['x-api-key'];
    if (header === undefined || header === '') {
      const token = bearerToken(request);
      if (token !== null && !looksLikeRawKey(token)) {
        const jwt = await authenticateBearer(deps, token);
        if (jwt.ok) {
          await tokenBudget.admit(reply, jwt.auth.tenantId);
          request.auth = jwt.auth;
          return;
        }
      }
      const misplaced = (token !== null && looksLikeRawKey(token)) || keyInQuery(request);
      throw new ApiError('MISSING_API_KEY', {}, misplaced ? { message: KEY_IN_WRONG_PLACE } : {});
    }
    if (typeof header !== 'string') {
      throw new ApiError('INVALID_API_KEY');
    }
    const result = await authenticateApiKey(apiKeys, header, config.apiKeyPrefix, lastUsed);
    if (!result.ok) {
      throw new ApiError(result.code);
    }
    await admitKey(request, reply, result.key, result.tenantSuspended);
  }

  return async function apiKeyAuth(request, reply) {
    try {
      await authenticate(request, reply);
    } catch (error) {
      throw await failures.judge(request, error);
    }
  };
}
