import type { FastifyRequest } from 'fastify';
import type { AuthContext } from './app-deps.js';

/** The JWT caller of a route in the JWT context (the hook guarantees it is there). */
export function jwtTenant(request: FastifyRequest): Extract<AuthContext, { kind: 'jwt' }> {
  const auth = request.auth;
  if (auth === null || auth.kind !== 'jwt') {
    throw new Error('route registered outside the JWT context');
  }
  return auth;
}

/** The caller of a route in the API-key context: a key or a dashboard JWT. */
export function tenantCaller(request: FastifyRequest): AuthContext {
  if (request.auth === null) {
    throw new Error('route registered outside the API-key context');
  }
  return request.auth;
}
