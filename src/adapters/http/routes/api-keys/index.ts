import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import { registerCreateApiKey } from './create-api-key.js';
import { registerGetApiKey, registerListApiKeys } from './list-api-keys.js';
import { registerRevokeApiKey } from './revoke-api-key.js';
import { registerRotateApiKey } from './rotate-api-key.js';

/** Key management (JWT context). */
export function registerApiKeyRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerCreateApiKey(app, deps);
  registerListApiKeys(app, deps);
  registerGetApiKey(app, deps);
  registerRotateApiKey(app, deps);
  registerRevokeApiKey(app, deps);
}
