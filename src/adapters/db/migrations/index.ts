import { migration0001 } from './0001-tenants-and-api-keys.js';
import { migration0002 } from './0002-api-keys-fillfactor.js';
import { migration0003 } from './0003-scans-queue-findings-events.js';
import { migration0004 } from './0004-webhooks.js';
import { migration0005 } from './0005-templates-and-usage.js';
import { migration0006 } from './0006-sentinel.js';
import { migration0007 } from './0007-sandboxed-engines.js';
import { migration0008 } from './0008-fair-claims.js';
import { migration0009 } from './0009-fair-deliveries.js';
import { migration0011 } from './0011-findings-sarif-order.js';
import { migration0012 } from './0012-redeliveries.js';
import { migration0013 } from './0013-issues.js';
import { migration0014 } from './0014-assets.js';
import { migration0015 } from './0015-schedules.js';
import { migration0016 } from './0016-finding-issues.js';
import { migration0017 } from './0017-webhook-filters.js';
import { migration0018 } from './0018-schedule-assets.js';
import { migration0019 } from './0019-scan-trace-context.js';
import { migration0020 } from './0020-retention.js';
import { migration0021 } from './0021-usage-by-creation.js';

/**
 * A numbered migration: statements run in order inside one transaction. Migrations are
 * append-only: once merged, a migration is never edited; a change is a new number.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
}

export const MIGRATIONS: readonly Migration[] = [
  migration0001,
  migration0002,
  migration0003,
  migration0004,
  migration0005,
  migration0006,
  migration0007,
  migration0008,
  migration0009,
  migration0011,
  migration0012,
  migration0013,
  migration0014,
  migration0015,
  migration0016,
  migration0017,
  migration0018,
  migration0019,
  migration0020,
  migration0021,
];
