import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import { registerApiKeySuspension } from './api-key-suspension.js';
import { registerAssetVerificationAdmin } from './asset-verification.js';
import {
  registerTenantMaxRunningScans,
  registerTenantQuota,
  registerTenantSuspension,
} from './tenant-admin.js';

/** Platform administration (JWT context, role admin). */
export function registerAdminRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerApiKeySuspension(app, deps);
  registerTenantSuspension(app, deps);
  registerTenantQuota(app, deps);
  registerTenantMaxRunningScans(app, deps);
  registerAssetVerificationAdmin(app, deps);
}
