/** vitest's global setup: runs once in the main process before the test files. */
import { ensureDashboardBuilt, ensureServiceBuilt } from './builds.js';
import { BACKEND } from './database.js';
import { writePgliteTemplate } from './pglite-template.js';

export async function setup(): Promise<() => Promise<void>> {
  await Promise.all([ensureServiceBuilt(), ensureDashboardBuilt()]);
  return BACKEND === 'pglite' ? writePgliteTemplate() : async () => {};
}
