import type { Migration } from './index.js';

/**
 * Scanner isolation: each worker registers, besides the engines it runs, those it runs inside the
 * scanner sandbox (GET /api/v1/engines reports an engine `sandboxed` when every live worker that
 * runs it does so sandboxed).
 */
export const migration0007: Migration = {
  version: 7,
  name: 'sandboxed-engines',
  statements: [`alter table workers add column sandboxed_engines text[] not null default '{}'`],
};
