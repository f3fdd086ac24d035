import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import { registerCancelScan } from './cancel-scan.js';
import { registerCreateScan } from './create-scan.js';
import { registerGetScan, registerListScans } from './read-scans.js';
import { registerGetResults, registerListFindings } from './scan-results.js';

/** Scans and their results (API-key context; each route declares its scope). */
export function registerScanRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerCreateScan(app, deps);
  registerListScans(app, deps);
  registerGetScan(app, deps);
  registerCancelScan(app, deps);
  registerGetResults(app, deps);
  registerListFindings(app, deps);
}
