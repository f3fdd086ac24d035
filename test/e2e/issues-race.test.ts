/**
 * Two ends of scans of one target that both see a new fingerprint, interleaved on purpose (on
 * PostgreSQL): the first end's transaction has inserted the issue and not committed yet when the
 * second end's upsert runs; the second waits on the unique index, finds the issue there once the
 * first commits, and counts its sighting (one issue, two occurrences, not fixed by the second
 * scan's fixed step). On PGlite (one connection, transactions one after the other) the same two
 * ends run in turn and must give the same rows.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertFindings } from '../../src/adapters/db/findings.repository.js';
import { updateIssuesForScan } from '../../src/adapters/db/issues.repository.js';
import { finalizeFindings } from '../../src/domain/findings/fingerprint.js';
import { draftFinding } from '../doubles/engines.js';
import { BACKEND, createTestDatabase, type TestDatabase } from '../support/database.js';
import { until } from '../support/until.js';

let database: TestDatabase;
const tenantId = randomUUID();
const target = '192.0.2.20';

beforeAll(async () => {
  database = await createTestDatabase();
  await sql`insert into tenants (id, status, monthly_scan_quota) values (${tenantId}, 'active', 100)`.execute(
    database.handle.db,
  );
});

afterAll(async () => {
  await database.destroy();
});

const findings = finalizeFindings(
  'nmap',
  [21, 25, 110].map((port) =>
    draftFinding({ location: { host: target, port, protocol: 'tcp', url: null } }),
  ),
);

async function newScan(): Promise<string> {
  const id = randomUUID();
  await sql`insert into scans (id, tenant_id, scan_type, name, target, target_type, priority,
      priority_rank, status, progress, options, timeout_seconds, started_at)
    values (${id}, ${tenantId}, 'nmap', 'race', ${target}, 'ip', 'normal', 2, 'running', 50, '{}',
      3600, now())`.execute(database.handle.db);
  return id;
}

/** One scan's end as finishScan stores it: its findings, then its issues, in one transaction. */
function end(scanId: string, beforeCommit: () => Promise<void> = async () => {}) {
  return database.handle.db.transaction().execute(async (trx) => {
    await insertFindings(trx, { id: scanId, tenantId, scanType: 'nmap' }, findings);
    await updateIssuesForScan(trx, {
      scanId,
      tenantId,
      target,
      end: 'completed',
      engines: ['nmap'],
    });
    await beforeCommit();
  });
}

describe('two ends of one target racing for new fingerprints', () => {
  it('makes one issue per fingerprint and counts both scans', async () => {
    const [first, second] = [await newScan(), await newScan()];
    if (BACKEND === 'postgres') {
      let commitFirst = () => {};
      const held = new Promise<void>((resolve) => {
        commitFirst = resolve;
      });
      let firstInserted = () => {};
      const inserted = new Promise<void>((resolve) => {
        firstInserted = resolve;
      });
      const firstEnd = end(first, async () => {
        firstInserted();
        await held;
      });
      await inserted;
      const secondEnd = end(second);
      // The second end waits on the first's uncommitted issue rows.
      await until(
        async () =>
          (
            await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
              where wait_event_type = 'Lock' and query like '%insert into issues%'`.execute(
              database.handle.db,
            )
          ).rows[0]?.n ?? 0,
        (waiting) => waiting > 0,
      );
      commitFirst();
      await Promise.all([firstEnd, secondEnd]);
    } else {
      await end(first);
      await end(second);
    }
    const { rows } = await sql<{
      fingerprint: string;
      occurrences: number;
      status: string;
      first_scan_id: string;
      last_scan_id: string;
    }>`select fingerprint, occurrences, status, first_scan_id, last_scan_id from issues
      where tenant_id = ${tenantId} order by fingerprint`.execute(database.handle.db);
    expect(rows.map((row) => row.fingerprint)).toEqual(
      findings.map((finding) => finding.fingerprint).sort(),
    );
    for (const row of rows) {
      expect(row).toMatchObject({
        occurrences: 2,
        status: 'open',
        first_scan_id: first,
        last_scan_id: second,
      });
    }
    const { rows: events } = await sql<{ n: number }>`
      select count(*)::int as n from issue_events where tenant_id = ${tenantId}`.execute(
      database.handle.db,
    );
    expect(events[0]?.n).toBe(3);
  });
});
