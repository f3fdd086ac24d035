/**
 * (issue 20b) `GET /api/v1/scans/:id/results?format=sarif` of a completed scan with 100,000
 * findings (200 rules, five severities, CVE/CWE ids and references) on PostgreSQL: the time to the
 * last byte, the bytes, and the API process's peak RSS (VmHWM, read from /proc after the export;
 * its value before the export is printed beside it). Target: peak RSS < 200 MB. Also a CSV export
 * of the same scan. The server is `dist/main/server.js` of BENCH_SERVER_ROOT (default: this
 * checkout), so the same script measures an older build against the same rows: the SHA-256 of
 * each body is printed to compare the bytes.
 * Run alone: `npm run build && npx tsx bench/sarif-export.ts` (BENCH_FINDINGS to change the count;
 * BENCH_SCHEMA to reuse a schema's rows, BENCH_KEEP_SCHEMA=1 to keep it).
 */
import type { ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { signToken } from '../src/adapters/auth-tokens/jwt.js';
import { DATABASE_URL } from './support/database.js';
import { startBuiltServer } from './support/http.js';

const ROOT = new URL('../', import.meta.url).pathname;
const SERVER_ROOT = process.env.BENCH_SERVER_ROOT ?? ROOT;
const FINDINGS = Number(process.env.BENCH_FINDINGS ?? 100_000);
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const PORT = 3920;
const CAPPED_HEAP = '--max-old-space-size=96';

export interface ExportSample {
  readonly format: 'sarif' | 'csv';
  /** Node flags of the API process ('' for none). */
  readonly flags: string;
  readonly findings: number;
  readonly seconds: number;
  readonly bytes: number;
  readonly sha256: string;
  readonly peakRssMbBefore: number;
  readonly peakRssMb: number;
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** One tenant, one completed nmap scan, `count` findings written by one INSERT … SELECT. */
async function seed(client: pg.Client, schema: string, count: number) {
  const tenantId = randomUUID();
  const scanId = randomUUID();
  await client.query(`set search_path to ${schema}`);
  await client.query(
    `insert into tenants (id, status, monthly_scan_quota) values ($1, 'active', 1000)`,
    [tenantId],
  );
  await client.query(
    `insert into scans (id, tenant_id, scan_type, name, target, target_type, priority,
       priority_rank, status, progress, options, timeout_seconds, result_count, started_at,
       completed_at)
     values ($1, $2, 'nmap', 'bench', '203.0.113.10', 'ip', 'normal', 2, 'completed', 100,
       '{}', 3600, $3, now(), now())`,
    [scanId, tenantId, count],
  );
  await client.query(
    `insert into findings (id, scan_id, tenant_id, engine, rule_id, title, severity,
       severity_rank, tool_severity, category, host, port, protocol, url, cve, cwe, description,
       evidence, remediation, refs, fingerprint, raw)
     select gen_random_uuid(), $1, $2, 'nmap', 'rule-' || (i % 200), 'Finding of rule ' || (i % 200),
       (array['critical','high','medium','low','info'])[1 + i % 5], i % 5, 'tool-' || (i % 5),
       'network', '10.0.' || (i / 250 % 256) || '.' || (i % 250), 1 + i % 65535, 'tcp',
       case when i % 3 = 0 then 'https://example.com/p/' || i end,
       case when i % 10 = 0 then array['CVE-2024-' || (1000 + i % 1000)] else '{}' end,
       array['CWE-' || (i % 50)], repeat('A description of what was found. ', 8) || i,
       'evidence ' || i, 'Upgrade the service.', array['https://example.com/ref/' || (i % 200)],
       encode(sha256(('fp' || i)::bytea), 'hex'), jsonb_build_object('line', repeat('x', 200))
     from generate_series(1, $3::integer) i`,
    [scanId, tenantId, count],
  );
  return { tenantId, scanId };
}

async function exportOnce(
  server: ChildProcess,
  flags: string,
  token: string,
  scanId: string,
  format: 'sarif' | 'csv',
  findings: number,
): Promise<ExportSample> {
  const pid = server.pid ?? 0;
  const peakBefore = peakRssMb(pid);
  const hash = createHash('sha256');
  let bytes = 0;
  const started = performance.now();
  const response = await fetch(
    `http://127.0.0.1:${PORT}/api/v1/scans/${scanId}/results?format=${format}`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  if (response.status !== 200 || response.body === null) {
    throw new Error(`export answered ${response.status}: ${await response.text()}`);
  }
  for await (const chunk of response.body) {
    bytes += chunk.byteLength;
    hash.update(chunk);
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    format,
    flags,
    findings,
    seconds: Number(seconds.toFixed(2)),
    bytes,
    sha256: hash.digest('hex').slice(0, 16),
    peakRssMbBefore: peakBefore,
    peakRssMb: peakRssMb(pid),
  };
}

function startServer(schema: string, nodeFlags: readonly string[] = []): Promise<ChildProcess> {
  return startBuiltServer({ root: SERVER_ROOT, port: PORT, schema, jwtSecret: SECRET, nodeFlags });
}

/** Seeds (or reuses) a schema, starts the server, exports SARIF then CSV, each in a fresh server. */
export async function benchSarifExport(): Promise<ExportSample[]> {
  const reuse = process.env.BENCH_SCHEMA;
  const schema = reuse ?? `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  const samples: ExportSample[] = [];
  try {
    if (reuse === undefined) {
      await admin.query(`create schema ${schema}`);
    }
    let server = await startServer(schema);
    let seeded: { tenantId: string; scanId: string };
    try {
      if (reuse === undefined) {
        seeded = await seed(admin, schema, FINDINGS);
        console.log(`seeded ${FINDINGS} findings in schema ${schema}`);
      } else {
        await admin.query(`set search_path to ${schema}`);
        const row = await admin.query(
          `select id, tenant_id from scans where name = 'bench' order by created_at limit 1`,
        );
        seeded = { scanId: row.rows[0].id, tenantId: row.rows[0].tenant_id };
      }
      await admin.query(`analyze ${schema}.findings`);
      const token = await signToken(SECRET, { subject: 'bench', tenantId: seeded.tenantId }, 3600);
      // Each export in a fresh process, so that its peak is its own: SARIF as the service runs
      // by default, SARIF with V8's old space capped (for comparison: before the pool stopped
      // using pg's query_timeout, see queryWithin in pg-pool.ts, the rows read were promoted to
      // the old generation and only the cap kept the peak under 200 MB), and CSV.
      const runs: Array<['sarif' | 'csv', string[]]> = [
        ['sarif', []],
        ['sarif', [CAPPED_HEAP]],
        ['csv', []],
      ];
      for (const [index, [format, flags]] of runs.entries()) {
        if (index > 0) {
          server.kill('SIGTERM');
          await new Promise((resolve) => server.once('exit', resolve));
          server = await startServer(schema, flags);
        }
        samples.push(
          await exportOnce(server, flags.join(' '), token, seeded.scanId, format, FINDINGS),
        );
      }
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
  } finally {
    if (reuse === undefined && process.env.BENCH_KEEP_SCHEMA !== '1') {
      await admin.query(`drop schema if exists ${schema} cascade`);
    }
    await admin.end();
  }
  return samples;
}

export function reportSarifExport(samples: readonly ExportSample[]): void {
  console.table(samples);
  const sarif = samples.find((sample) => sample.format === 'sarif' && sample.flags === '');
  if (sarif !== undefined) {
    console.log(
      `SARIF export of ${sarif.findings} findings: ${sarif.seconds} s, ${(sarif.bytes / 1e6).toFixed(0)} MB, peak RSS ${sarif.peakRssMb} MB (target < 200 MB): ${sarif.peakRssMb < 200 ? 'met' : 'NOT met'}`,
    );
  }
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  reportSarifExport(await benchSarifExport());
}
