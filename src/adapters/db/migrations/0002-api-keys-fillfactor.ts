import type { Migration } from './index.js';

/**
 * Room on each api_keys page for the row's next version. lastUsedAt is rewritten once a minute per
 * key in use; with full pages (fillfactor 100) nearly every such update moved the row to another
 * page and added index entries that later key lookups step over until vacuum (5 of 2000 updates
 * were HOT in a check on PostgreSQL 15; 1200 of 2000 with fillfactor 70, as one bulk update).
 * Applies to pages written from now on; existing rows move as they are updated.
 */
export const migration0002: Migration = {
  version: 2,
  name: 'api-keys-fillfactor',
  statements: ['alter table api_keys set (fillfactor = 70)'],
};
