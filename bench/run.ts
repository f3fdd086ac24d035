/**
 * npm run bench: authenticated GET /api/v1/engines on PostgreSQL and on the embedded PGlite,
 * against a bare Fastify hello-world, alternating, 5 runs of 10 s at 10 and at 100 connections
 * after a warm-up; prints medians of requests/s, p50 and p99 latency, and the ratio to hello-world.
 * Servers and the load generator are separate processes. Target (issue 2): ratio >= 0.25 and
 * p99 < 10 ms at 10 connections on PostgreSQL. A fourth target, bare Fastify with one indexed
 * PostgreSQL lookup per request, shows the floor that ratio was derived from.
 *
 * Then (issue 3): POST /api/v1/scans throughput against the same hello-world and an insert floor;
 * queue dispatch latency and claim throughput (bench/queue.ts, with graphile-worker for
 * comparison); nmap XML parsing speed (bench/nmap-parse.ts); webhook fan-out (bench/webhooks.ts).
 *
 * Then (issue 6): every engine's report parser on every real fixture, peak RSS per fixture in a
 * fresh process and MB/s for fixtures over 1 MB (bench/parsers.ts).
 *
 * Then (sentinel): correlation of findings of five engines at 10k, 100k and 1M findings: time and
 * growth (bench/correlation.ts), and instructions counted under callgrind, on which the linear
 * growth is judged (bench/correlation-instructions.ts; BENCH_INSTRUCTIONS=0 skips it).
 *
 * Then (issue 20 a, scan half): tenant B's 201 → running latency while tenant A floods the queue,
 * next to the same without the flood (bench/fair-claims.ts).
 *
 * Then (issue 18): the scanner sandbox's cost per scan start, `nmap --version` in a workspace bare
 * and through bwrap, setpriv and prlimit (bench/sandbox-start.ts; skipped without the sandbox).
 *
 * Issue 20 (a), delivery half: tenant B's event → delivery p50/p99 alone and while tenant A floods
 * with its webhooks on a dead receiver (bench/fair-deliveries.ts, after the webhook fan-out).
 *
 * Then (issue 20b): the SARIF (and CSV) export of a scan with 100,000 findings: time and the API
 * process's peak RSS, target < 200 MB (bench/sarif-export.ts).
 *
 * Then (issue 23): updating issues when a scan of 10,000 findings ends, against 100,000 issues of
 * its tenant, target < 1 s (bench/issues.ts).
 * Then (issue 24): 10,000 due schedules, three scheduler processes: time until every occurrence
 * has created its scans, target < 15 s, and none twice (bench/schedules.ts).
 * Then (issue 25): the capacity model's figures: an API process's CPU per authenticated request
 * and per scan create, PostgreSQL's time per claim, finish and delivery (bench/capacity.ts).
 * Then (issue 26): the dashboard's JavaScript, gzipped, target < 150 KB, and the time to its
 * scan list of 1,000 scans painted in headless Chromium, target < 1 s (bench/dashboard.ts).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { signToken } from '../src/adapters/auth-tokens/jwt.js';
import { benchCapacity, reportCapacity } from './capacity.js';
import { type CorrelationBenchResult, reportCorrelation } from './correlation.js';
import {
  benchCorrelationInstructions,
  type InstructionResult,
  reportCorrelationInstructions,
} from './correlation-instructions.js';
import { benchDashboard, reportDashboard } from './dashboard.js';
import { benchFairClaims, describeFairClaims } from './fair-claims.js';
import { benchFairDeliveries, describeFairDeliveries } from './fair-deliveries.js';
import { benchIssues, reportIssues } from './issues.js';
import { benchNmapParse } from './nmap-parse.js';
import { benchParsers, reportParsers } from './parsers.js';
import { benchClaims, benchDispatch, benchFindingScans, benchGraphile } from './queue.js';
import { benchSandboxStart, describeSandboxStart } from './sandbox-start.js';
import { benchSarifExport, reportSarifExport } from './sarif-export.js';
import { benchSchedules, reportSchedules } from './schedules.js';
import { waitForHttp } from './support/http.js';
import { benchWebhooks } from './webhooks.js';

const ROOT = new URL('../', import.meta.url).pathname;
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const KEYS = 1000;

interface Sample {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}
interface Target {
  name: string;
  url: string;
  keysFile?: string;
  /** A JSON body file: the target is loaded with POSTs of it. */
  bodyFile?: string;
  process: ChildProcess;
}

function waitFor(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`server exited (${code}): ${seen.slice(-2000)}`)),
    );
  });
}

async function startRampart(
  name: string,
  port: number,
  env: Record<string, string>,
): Promise<Target> {
  const child = spawn(process.execPath, ['dist/main/server.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      JWT_SECRET: SECRET,
      LOG_LEVEL: 'warn',
      // API only: scans created by the benchmark must not start real scanners.
      WORKERS: '0',
      // The POST /api/v1/scans runs create a few hundred thousand scans: the default quota of
      // 1,000 a month would turn all but the first thousand into 429 QUOTA_EXCEEDED.
      DEFAULT_MONTHLY_SCAN_QUOTA: '10000000',
      // One tenant makes the 1,000 keys with one dashboard token in a few seconds.
      TENANT_MAX_API_KEYS: '100000',
      TENANT_TOKEN_REQUESTS_PER_MINUTE: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForHttp(`http://127.0.0.1:${port}/readyz`, child);
  const tenantId = randomUUID();
  const token = await signToken(SECRET, { subject: 'bench', tenantId }, 3600);
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: `bench-${i}`,
        rateLimitPerMinute: 1000,
        rateLimitPerHour: 50000,
        rateLimitPerDay: 500000,
      }),
    });
    const body = (await response.json()) as { data: { rawKey: string } };
    keys.push(body.data.rawKey);
  }
  const keysFile = join(tmpdir(), `rampart-bench-keys-${name}.json`);
  writeFileSync(keysFile, JSON.stringify(keys));
  return { name, url: `http://127.0.0.1:${port}/api/v1/engines`, keysFile, process: child };
}

function load(target: Target, connections: number, seconds: number): Sample {
  const args = ['bench/load.ts', target.url, String(connections), String(seconds)];
  args.push(target.keysFile ?? '-');
  if (target.bodyFile) {
    args.push(target.bodyFile);
  }
  const out = execFileSync(TSX, args, { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Sample;
}

/** The lookup baseline is sent the keys' hashes, so every lookup finds a row as Rampart's does. */
function hashesOf(keysFile: string): string[] {
  const keys = JSON.parse(readFileSync(keysFile, 'utf8')) as string[];
  return keys.map((key) => createHash('sha256').update(key).digest('hex'));
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

async function main() {
  console.log('building…');
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  const schema = `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'rampart-bench-'));
  const hello = spawn(TSX, ['bench/hello-server.ts', '3900'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const targets: Target[] = [];
  try {
    await waitFor(hello, /ready/);
    const helloWorld: Target = {
      name: 'hello-world',
      url: 'http://127.0.0.1:3900/hello',
      process: hello,
    };
    targets.push(helloWorld);
    const pgUrl = `${DATABASE_URL}${DATABASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const postgres = await startRampart('postgres', 3901, { DATABASE_URL: pgUrl });
    targets.push(postgres);
    // The load generator does the same work for every target: each request carries the next key
    // of the list in X-API-Key (the baseline ignores it), so that the ratio compares servers and
    // not two different loads.
    if (postgres.keysFile !== undefined) {
      helloWorld.keysFile = postgres.keysFile;
    }
    // The floor the issue reasons from: bare Fastify plus one indexed PostgreSQL lookup.
    const lookup = spawn(TSX, ['bench/lookup-server.ts', '3903', DATABASE_URL, schema], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await waitFor(lookup, /ready/);
    const lookupKeys = join(tmpdir(), 'rampart-bench-keys-lookup.json');
    writeFileSync(lookupKeys, JSON.stringify(hashesOf(postgres.keysFile ?? '')));
    targets.push({
      name: 'pg-lookup',
      url: 'http://127.0.0.1:3903/lookup',
      keysFile: lookupKeys,
      process: lookup,
    });
    targets.push(await startRampart('pglite', 3902, { DATA_DIR: dataDir }));
    const results: Record<string, Record<number, Sample[]>> = {};
    for (const connections of [10, 100]) {
      console.log(`warm-up at ${connections} connections…`);
      for (const target of targets) {
        load(target, connections, 3);
      }
      for (let run = 1; run <= RUNS; run++) {
        for (const target of targets) {
          const sample = load(target, connections, SECONDS);
          results[target.name] ??= {};
          (results[target.name] as Record<number, Sample[]>)[connections] ??= [];
          results[target.name]?.[connections]?.push(sample);
          console.log(
            `  run ${run} ${target.name.padEnd(11)} c=${connections}: ${sample.requestsPerSecond.toFixed(0)} req/s, p50 ${sample.p50} ms, p99 ${sample.p99} ms, non-2xx ${sample.non2xx}, errors ${sample.errors}`,
          );
        }
      }
    }
    const summary = report(results);
    const scans = await benchCreateScans(admin, schema, postgres, helloWorld);
    const queue = await benchQueue();
    console.log('\nfair claims (issue 20 a): tenant B while tenant A floods the queue…');
    const fairClaims = await benchFairClaims();
    console.log(describeFairClaims(fairClaims));
    const parsers = benchParsers();
    reportParsers(parsers);
    // In a fresh process with --expose-gc: the earlier stages leave a large heap behind, and the
    // 1M-finding run then measured the garbage collector more than the correlation.
    const correlation = JSON.parse(
      execFileSync(TSX, ['--expose-gc', join(ROOT, 'bench/correlation.ts'), '--json'], {
        encoding: 'utf8',
        maxBuffer: 16 * 1024 * 1024,
      }),
    ) as CorrelationBenchResult;
    reportCorrelation(correlation);
    let instructions: InstructionResult | null = null;
    if (process.env.BENCH_INSTRUCTIONS !== '0') {
      instructions = benchCorrelationInstructions();
      reportCorrelationInstructions(instructions);
    }
    const sandboxStart = await benchSandboxStart();
    console.log(describeSandboxStart(sandboxStart));
    console.log('\nSARIF and CSV export of a scan with 100,000 findings…');
    const sarifExport = await benchSarifExport();
    reportSarifExport(sarifExport);
    const issues = await benchIssues();
    reportIssues(issues);
    console.log('\nIssue 24: 10,000 due schedules, three scheduler processes…');
    const schedules = await benchSchedules();
    reportSchedules(schedules);
    console.log(
      '\nIssue 25: capacity figures (API CPU per request, PostgreSQL per queue operation)…',
    );
    const capacity = await benchCapacity();
    reportCapacity(capacity);
    console.log('\nIssue 26: the dashboard, its size and its scan list of 1,000 scans…');
    const dashboard = await benchDashboard();
    reportDashboard(dashboard);
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(
      join(ROOT, 'bench/results/latest.json'),
      JSON.stringify(
        {
          date: new Date().toISOString(),
          summary,
          results,
          scans,
          queue,
          fairClaims,
          parsers,
          correlation,
          instructions,
          sandboxStart,
          sarifExport,
          issues,
          schedules,
          capacity,
          dashboard,
        },
        null,
        2,
      ),
    );
  } finally {
    for (const target of targets) {
      target.process.kill('SIGTERM');
    }
    hello.kill('SIGTERM');
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * (issue 3a) POST /api/v1/scans on PostgreSQL next to the bare Fastify hello-world and to the
 * insert floor (bare Fastify, schema-validated body, one 15-column INSERT), alternating, at 10
 * connections. The API runs without workers; a registered stand-by worker row answers the 503
 * check, so the scans stay queued. Target: ratio >= 0.12 to hello-world.
 */
async function benchCreateScans(
  admin: pg.Client,
  schema: string,
  postgres: Target,
  helloWorld: Target,
): Promise<Array<Record<string, string | number>>> {
  await admin.query(
    `insert into ${schema}.workers (id, engines, hostname, pid, heartbeat_at)
     values ('bench-standby', '{nmap}', 'bench', 0, now() + interval '1 day')`,
  );
  const bodyFile = join(tmpdir(), 'rampart-bench-scan.json');
  writeFileSync(bodyFile, JSON.stringify({ target: '203.0.113.10', scanType: 'nmap' }));
  const insert = spawn(TSX, ['bench/insert-server.ts', '3904', DATABASE_URL, schema], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    await waitFor(insert, /ready/);
    const targets: Target[] = [
      helloWorld,
      { name: 'insert-floor', url: 'http://127.0.0.1:3904/scans', bodyFile, process: insert },
      {
        ...postgres,
        name: 'POST scans',
        url: postgres.url.replace('/api/v1/engines', '/api/v1/scans'),
        bodyFile,
      },
    ];
    console.log('POST /api/v1/scans: warm-up…');
    for (const target of targets) {
      load(target, 10, 3);
    }
    const samples: Record<string, Sample[]> = {};
    for (let run = 1; run <= RUNS; run++) {
      for (const target of targets) {
        const sample = load(target, 10, SECONDS);
        const list = samples[target.name] ?? [];
        list.push(sample);
        samples[target.name] = list;
        console.log(
          `  run ${run} ${target.name.padEnd(12)} c=10: ${sample.requestsPerSecond.toFixed(0)} req/s, p50 ${sample.p50} ms, p99 ${sample.p99} ms, non-2xx ${sample.non2xx}`,
        );
      }
    }
    const base = median((samples['hello-world'] ?? []).map((s) => s.requestsPerSecond));
    const rows = Object.entries(samples).map(([name, list]) => {
      const rps = median(list.map((s) => s.requestsPerSecond));
      return {
        target: name,
        'req/s': Math.round(rps),
        'p50 ms': median(list.map((s) => s.p50)),
        'p99 ms': median(list.map((s) => s.p99)),
        'non-2xx': list.reduce((sum, s) => sum + s.non2xx, 0),
        ratio: Number((rps / base).toFixed(3)),
      };
    });
    console.log(`\nPOST /api/v1/scans, medians of ${RUNS} runs of ${SECONDS} s at 10 connections:`);
    console.table(rows);
    const ours = rows.find((row) => row.target === 'POST scans');
    // A run that answered errors measured the errors, not the route.
    const verdict =
      Number(ours?.['non-2xx']) > 0
        ? `INVALID (${ours?.['non-2xx']} non-2xx answers)`
        : Number(ours?.ratio) >= 0.12
          ? 'met'
          : 'NOT met';
    console.log(`target (ratio >= 0.12 to hello-world): ${verdict}`);
    return rows;
  } finally {
    insert.kill('SIGTERM');
  }
}

/** (issue 3b, 3c, 3d) queue dispatch latency, claim throughput, nmap XML parsing. */
async function benchQueue() {
  console.log('\nqueue dispatch latency (500 scans, idle worker, instant test engine)…');
  const dispatch = await benchDispatch();
  console.log(
    `  201 → running: p50 ${dispatch.p50} ms, p99 ${dispatch.p99} ms (targets p50 < 4, p99 < 15): ${dispatch.p50 < 4 && dispatch.p99 < 15 ? 'met' : 'NOT met'}`,
  );
  console.log('claim throughput (20,000 queued scans, 8 workers) and graphile-worker…');
  // Three alternating rounds, medians: one round varies by ±15 % on this machine.
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let round = 0; round < 3; round++) {
    ours.push((await benchClaims()).scansPerSecond);
    theirs.push((await benchGraphile()).jobsPerSecond);
  }
  const claims = { scansPerSecond: median(ours), rounds: ours };
  const graphile = { jobsPerSecond: median(theirs), rounds: theirs };
  const ratio = claims.scansPerSecond / graphile.jobsPerSecond;
  console.log(
    `  Rampart ${claims.scansPerSecond} scans/s, graphile-worker ${graphile.jobsPerSecond} jobs/s: ${ratio.toFixed(2)}× (target >= 1.0): ${ratio >= 1 ? 'met' : 'NOT met'}`,
  );
  console.log('finishes with findings (2,000 scans of 30 findings each, 8 workers)…');
  const withFindings = await benchFindingScans();
  console.log(`  ${withFindings.scansPerSecond} scans/s (the finish path of real scans)`);
  const parse = await benchNmapParse();
  console.log(
    `nmap XML parsing, ${parse.file} (${parse.bytes} bytes): ${parse.mbPerSecond.toFixed(1)} MB/s, peak RSS ${parse.peakRssMb.toFixed(0)} MB`,
  );
  console.log('webhook fan-out (1,000 events × 10 webhooks, local HTTPS receiver)…');
  const webhooks = await benchWebhooks();
  console.log(
    `  ${webhooks.deliveriesPerSecond} deliveries/s, event → receipt p50 ${webhooks.p50} ms, p99 ${webhooks.p99} ms (target >= 500/s): ${webhooks.deliveriesPerSecond >= 500 ? 'met' : 'NOT met'}`,
  );
  console.log(
    'fair deliveries (issue 20): tenant B alone, then beside tenant A with 25 webhooks on a dead receiver…',
  );
  const fairDeliveries = await benchFairDeliveries();
  console.log(describeFairDeliveries(fairDeliveries));
  return {
    dispatch,
    claims,
    graphile,
    ratio: Number(ratio.toFixed(2)),
    parse,
    webhooks,
    fairDeliveries,
  };
}

function report(results: Record<string, Record<number, Sample[]>>) {
  const rows: Array<Record<string, string | number>> = [];
  for (const connections of [10, 100]) {
    const rpsOf = (name: string) =>
      median((results[name]?.[connections] ?? []).map((s) => s.requestsPerSecond));
    const base = rpsOf('hello-world');
    const lookupBase = rpsOf('pg-lookup');
    for (const name of Object.keys(results)) {
      const samples = results[name]?.[connections] ?? [];
      const rps = median(samples.map((s) => s.requestsPerSecond));
      rows.push({
        target: name,
        connections,
        'req/s': Math.round(rps),
        'p50 ms': median(samples.map((s) => s.p50)),
        'p99 ms': median(samples.map((s) => s.p99)),
        'non-2xx': samples.reduce((sum, s) => sum + s.non2xx, 0),
        ratio: name === 'hello-world' ? 1 : Number((rps / base).toFixed(3)),
        'vs pg-lookup': Number((rps / lookupBase).toFixed(3)),
      });
    }
  }
  console.log(
    `\nMedians of ${RUNS} runs of ${SECONDS} s (GET /api/v1/engines with X-API-Key vs bare Fastify):`,
  );
  console.table(rows);
  const pg10 = rows.find((r) => r.target === 'postgres' && r.connections === 10);
  if (pg10) {
    const ok = Number(pg10.ratio) >= 0.25 && Number(pg10['p99 ms']) < 10;
    console.log(
      `target (PostgreSQL, 10 connections: ratio >= 0.25 and p99 < 10 ms): ${ok ? 'met' : 'NOT met'}`,
    );
  }
  return rows;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
