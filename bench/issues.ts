/**
 * (issue 23) Updating issues when a scan ends, on PostgreSQL: a completed nmap scan of 10,000
 * findings against 100,000 existing issues of its tenant. Target: < 1 s. The time is that of
 * updateIssuesForScan (its statements in the finishing transaction; storing the findings
 * themselves is measured apart, as it was before issues existed).
 *
 * Two shapes of the tenant's 100,000 issues:
 * - spread: 10 targets of 10,000 issues each; the scan's target has 10,000 issues of which the
 *   scan sees 9,000 again (1,000 of them fixed before: reopened), 1,000 not (fixed), and 1,000
 *   findings are new;
 * - one target: all 100,000 issues on the scanned target (the worst case: 91,000 move to fixed).
 * Each shape is measured on three scans in a row (each one's moves are real: what the last one
 * fixed the next may reopen), the median printed.
 * Run alone: `npx tsx bench/issues.ts`.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { connectPostgres } from '../src/adapters/db/connect.js';
import { updateIssuesForScan } from '../src/adapters/db/issues.repository.js';
import { migrate } from '../src/adapters/db/migrate.js';
import { DATABASE_URL, withSchema } from './support/database.js';

const ISSUES = 100_000;
const FINDINGS = 10_000;
const ROUNDS = 3;

export interface IssuesBenchSample {
  readonly shape: 'spread' | 'one-target';
  readonly issues: number;
  readonly findings: number;
  /** Seconds of updateIssuesForScan, one per round. */
  readonly seconds: readonly number[];
  /** Seconds to store the findings (insertFindings's rows), for comparison. */
  readonly insertSeconds: readonly number[];
  /** The last round's moves. */
  readonly moves: Readonly<Record<string, number>>;
}

export interface IssuesBenchResult {
  readonly samples: readonly IssuesBenchSample[];
}

async function benchShape(shape: 'spread' | 'one-target'): Promise<IssuesBenchSample> {
  return withSchema(async (schema) => {
    const handle = connectPostgres(DATABASE_URL, { schema, poolSize: 2 });
    try {
      await migrate(handle.db);
      const db = handle.db;
      const tenantId = randomUUID();
      const targets = shape === 'spread' ? 10 : 1;
      const perTarget = ISSUES / targets;
      const seedScan = randomUUID();
      await sql`insert into tenants (id, status, monthly_scan_quota) values (${tenantId}, 'active', 1000)`.execute(
        db,
      );
      await sql`insert into scans (id, tenant_id, scan_type, name, target, target_type, priority,
          priority_rank, status, progress, options, timeout_seconds, started_at, completed_at)
        values (${seedScan}, ${tenantId}, 'nmap', 'seed', 'target-0', 'host', 'normal', 2,
          'completed', 100, '{}', 3600, now(), now())`.execute(db);
      // The tenant's issues: every tenth fixed, as after earlier scans.
      await sql`insert into issues (id, tenant_id, target, fingerprint, engine, rule_id, title,
          severity, severity_rank, category, host, port, protocol, cve, cwe, description, refs,
          first_seen_at, last_seen_at, first_scan_id, last_scan_id, occurrences, status,
          status_changed_at)
        select gen_random_uuid(), ${tenantId}, 'target-' || t, encode(sha256(('fp-' || t || '-' || i)::bytea), 'hex'),
          'nmap', 'rule-' || (i % 200), 'Finding of rule ' || (i % 200),
          (array['critical','high','medium','low','info'])[1 + i % 5], i % 5, 'network',
          '10.0.' || (i / 250 % 256) || '.' || (i % 250), 1 + i % 65535, 'tcp', '{}',
          array['CWE-' || (i % 50)], 'A description ' || i, '{}',
          now() - interval '7 days', now() - interval '1 day', ${seedScan}, ${seedScan}, 3,
          case when i % 10 = 0 then 'fixed' else 'open' end, now() - interval '1 day'
        from generate_series(0, ${targets - 1}) t, generate_series(1, ${perTarget}::integer) i`.execute(
        db,
      );
      await sql`insert into issue_keys (tenant_id, target, fingerprint, issue_id)
        select tenant_id, target, fingerprint, id from issues`.execute(db);
      await sql`vacuum analyze`.execute(db);
      const seconds: number[] = [];
      const insertSeconds: number[] = [];
      let moves: Record<string, number> = {};
      for (let round = 0; round < ROUNDS; round++) {
        const scanId = randomUUID();
        await sql`insert into scans (id, tenant_id, scan_type, name, target, target_type,
            priority, priority_rank, status, progress, options, timeout_seconds, started_at)
          values (${scanId}, ${tenantId}, 'nmap', 'bench', 'target-0', 'host', 'normal', 2,
            'running', 50, '{}', 3600, now())`.execute(db);
        // 9,000 known fingerprints (a window that moves each round), 1,000 new ones.
        const known = FINDINGS - FINDINGS / 10;
        const offset = round * 500;
        const insertStart = performance.now();
        await sql`insert into findings (id, scan_id, tenant_id, engine, rule_id, title, severity,
            severity_rank, category, host, port, protocol, cve, cwe, description, refs, fingerprint)
          select gen_random_uuid(), ${scanId}, ${tenantId}, 'nmap', 'rule-' || (i % 200),
            'Finding of rule ' || (i % 200) || ' (round ${sql.raw(String(round))})',
            (array['critical','high','medium','low','info'])[1 + i % 5], i % 5, 'network',
            '10.0.' || (i / 250 % 256) || '.' || (i % 250), 1 + i % 65535, 'tcp', '{}',
            array['CWE-' || (i % 50)], 'A description ' || i, '{}',
            case when i <= ${known} then encode(sha256(('fp-0-' || (i + ${offset}))::bytea), 'hex')
              else encode(sha256(('new-${sql.raw(String(round))}-' || i)::bytea), 'hex') end
          from generate_series(1, ${FINDINGS}::integer) i`.execute(db);
        insertSeconds.push((performance.now() - insertStart) / 1000);
        const start = performance.now();
        await db.transaction().execute((trx) =>
          updateIssuesForScan(trx, {
            scanId,
            tenantId,
            target: 'target-0',
            end: 'completed',
            engines: ['nmap'],
          }),
        );
        seconds.push((performance.now() - start) / 1000);
        const { rows } = await sql<{ to_state: string; n: number }>`
          select to_state, count(*)::int as n from issue_events where scan_id = ${scanId}
          group by to_state`.execute(db);
        moves = Object.fromEntries(rows.map((row) => [row.to_state, row.n]));
      }
      return { shape, issues: ISSUES, findings: FINDINGS, seconds, insertSeconds, moves };
    } finally {
      await handle.close();
    }
  });
}

export async function benchIssues(): Promise<IssuesBenchResult> {
  return { samples: [await benchShape('spread'), await benchShape('one-target')] };
}

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

export function reportIssues(result: IssuesBenchResult): void {
  console.log(
    '\nIssues when a scan ends (issue 23): 10,000 findings, 100,000 issues of the tenant, PostgreSQL',
  );
  for (const sample of result.samples) {
    const ms = (s: number) => `${Math.round(s * 1000)} ms`;
    console.log(
      `  ${sample.shape.padEnd(10)} update ${ms(median(sample.seconds))} median ` +
        `(${sample.seconds.map(ms).join(', ')}); storing the findings ${ms(median(sample.insertSeconds))}; ` +
        `last round's moves ${JSON.stringify(sample.moves)}; target < 1 s: ` +
        `${median(sample.seconds) < 1 ? 'met' : 'NOT met'}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  reportIssues(await benchIssues());
}
