/**
 * (issue 26) The dashboard's weight and the time to its scan list.
 *
 * (a) Size: every .js file the build wrote to dist/app/static, gzipped at level 9 (as a server or
 *     proxy compressing it would send it) and brotli'd at quality 11; those index.html loads
 *     (the first visit's JavaScript) apart from lazy chunks, and the CSS apart. Target: all
 *     JavaScript < 150 KB gzipped. The service itself sends the files uncompressed (no compression
 *     plugin): on a network the figure is what a compressing proxy in front of it serves.
 * (b) Time to a rendered scan list: one tenant with 1,000 scans (seeded by one INSERT … SELECT:
 *     mostly completed with findings, some failed and cancelled, the newest five queued and five
 *     running), the real server (dist/main/server.js, WORKERS=0, its own process) on PostgreSQL,
 *     Debian's chromium through playwright-core. Each run is a fresh browser context (empty cache,
 *     the dashboard token put in sessionStorage by an init script, as the sign-in page leaves it)
 *     navigating to /app/scans; a MutationObserver installed before the page's scripts records
 *     performance.now() (milliseconds since the navigation started) when the table's rows enter
 *     the document, and again in the next animation frame, the one that paints them: that second
 *     figure is the result. The page shows 50 rows, its pager must say 1,000 scans. One warm-up
 *     run and BENCH_DASHBOARD_RUNS (10) measured at the laptop viewport, one at the phone's.
 *     Target: < 1 s. The navigation's own timings (document, script, the list call) are printed
 *     beside it, and the wall time the driver saw.
 * Run alone: `npx tsx bench/dashboard.ts` (it runs `npm run build` first, as bench/run.ts does).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { signToken } from '../src/adapters/auth-tokens/jwt.js';
import {
  DASHBOARD_DIR,
  DASHBOARD_FILES_DIR,
} from '../src/adapters/http/routes/system/dashboard.js';
import { ensureDashboardBuilt } from '../test/support/builds.js';
import { LAPTOP, launchChromium, PHONE } from '../test/support/chromium.js';
import { DATABASE_URL, withSchema } from './support/database.js';
import { startBuiltServer } from './support/http.js';
import { quantile } from './support/latency.js';

const ROOT = new URL('../', import.meta.url).pathname;
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const PORT = 3930;
const SCANS = 1000;
const RUNS = Number(process.env.BENCH_DASHBOARD_RUNS ?? 10);
const JS_TARGET_KB = 150;
const LIST_TARGET_MS = 1000;
/** The sessionStorage key web/src/lib/session.ts keeps the dashboard token under. */
const TOKEN_KEY = 'rampart.token';

export interface AssetSize {
  readonly file: string;
  /** Loaded by index.html (the first visit), as opposed to a chunk imported later. */
  readonly initial: boolean;
  readonly bytes: number;
  readonly gzip: number;
  readonly brotli: number;
}

export interface DashboardSize {
  readonly assets: readonly AssetSize[];
  /** Sums in bytes over every .js file, over those index.html loads, and over the CSS. */
  readonly js: { readonly bytes: number; readonly gzip: number; readonly brotli: number };
  readonly initialJs: { readonly bytes: number; readonly gzip: number; readonly brotli: number };
  readonly css: { readonly bytes: number; readonly gzip: number; readonly brotli: number };
}

/** What one navigation to /app/scans measured in the page (ms since the navigation started). */
export interface ListSample {
  /** The rows entered the document. */
  readonly rowsMs: number;
  /** The animation frame after that: the one that paints them (the result). */
  readonly frameMs: number;
  /** index.html received. */
  readonly documentMs: number;
  /** The last script received. */
  readonly scriptMs: number;
  /** DOMContentLoaded: the app's module has run (its first render, Loading…, is in). */
  readonly appMs: number;
  /** GET /api/v1/scans sent and answered. */
  readonly listRequestMs: number;
  readonly listAnswerMs: number;
  /** From page.goto's call to the driver reading the marks after that frame, in this process. */
  readonly wallMs: number;
  readonly rows: number;
  /** The pager's text, e.g. "Page 1 of 20 · 1,000 scans". */
  readonly pager: string;
}

export interface ListTiming {
  readonly viewport: string;
  readonly samples: readonly ListSample[];
  readonly medianMs: number;
  readonly p95Ms: number;
}

export interface DashboardBenchResult {
  readonly date: string;
  readonly loadAverage: readonly number[];
  readonly size: DashboardSize;
  readonly laptop: ListTiming;
  readonly phone: ListTiming;
}

const sum = (assets: readonly AssetSize[]) => ({
  bytes: assets.reduce((total, asset) => total + asset.bytes, 0),
  gzip: assets.reduce((total, asset) => total + asset.gzip, 0),
  brotli: assets.reduce((total, asset) => total + asset.brotli, 0),
});

/** The built app's assets and their compressed sizes (dir: dist/app). */
export function measureDashboardSize(dir: string = DASHBOARD_DIR): DashboardSize {
  const index = readFileSync(join(dir, 'index.html'), 'utf8');
  const loaded = new Set(
    [...index.matchAll(new RegExp(`(?:src|href)="/app/${DASHBOARD_FILES_DIR}/([^"]+)"`, 'g'))].map(
      (match) => match[1],
    ),
  );
  const assets = readdirSync(join(dir, DASHBOARD_FILES_DIR))
    .filter((file) => file.endsWith('.js') || file.endsWith('.css'))
    .sort()
    .map((file) => {
      const content = readFileSync(join(dir, DASHBOARD_FILES_DIR, file));
      return {
        file,
        initial: loaded.has(file),
        bytes: content.length,
        gzip: gzipSync(content, { level: 9 }).length,
        brotli: brotliCompressSync(content, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
        }).length,
      };
    });
  const js = assets.filter((asset) => asset.file.endsWith('.js'));
  return {
    assets,
    js: sum(js),
    initialJs: sum(js.filter((asset) => asset.initial)),
    css: sum(assets.filter((asset) => asset.file.endsWith('.css'))),
  };
}

/**
 * `count` scans of one new tenant in one statement, newest (highest seq) last: completed with
 * findings but every 20th failed and the one after it cancelled, then five queued and five
 * running (leased by a worker that is not there, for a day) on top, as a busy tenant's list looks.
 */
async function seedScans(client: pg.Client, tenantId: string, count: number): Promise<void> {
  await client.query(
    `insert into tenants (id, status, monthly_scan_quota) values ($1, 'active', 100000)`,
    [tenantId],
  );
  await client.query(
    `insert into scans (id, tenant_id, scan_type, name, target, target_type, priority,
       priority_rank, status, progress, options, timeout_seconds, result_count, findings_summary,
       risk_score, error_code, error_message, attempts, lease_owner, lease_expires_at,
       created_at, started_at, completed_at)
     select gen_random_uuid(), $1, s.scan_type, 'nightly ' || s.i, s.target, s.target_type,
       'normal', 2, s.status,
       case s.status when 'completed' then 100 when 'running' then s.i * 37 % 100
         when 'queued' then 0 else s.i % 90 end,
       '{}', 3600,
       case when s.status = 'completed' then s.i % 2 + s.i % 5 + s.i % 7 + s.i % 11 + s.i % 13
         else 0 end,
       case when s.status = 'completed' then jsonb_build_object('critical', s.i % 2,
         'high', s.i % 5, 'medium', s.i % 7, 'low', s.i % 11, 'info', s.i % 13)
         else '{"critical":0,"high":0,"medium":0,"low":0,"info":0}' end,
       case when s.status = 'completed' then s.i % 100 else 0 end,
       case when s.status = 'failed' then 'SCAN_TIMEOUT' end,
       case when s.status = 'failed' then 'The scan ran out of time.' end,
       case when s.status = 'queued' then 0 else 1 end,
       case when s.status = 'running' then 'bench-absent-worker' end,
       case when s.status = 'running' then now() + interval '1 day' end,
       now() - ($2::integer - s.i) * interval '10 minutes',
       case when s.status <> 'queued' then now() - ($2::integer - s.i) * interval '10 minutes' end,
       case when s.status in ('completed', 'failed', 'cancelled')
         then now() - ($2::integer - s.i) * interval '10 minutes' + interval '4 minutes' end
     from (
       select i,
         (array['nmap', 'zap', 'trivy'])[1 + i % 3] as scan_type,
         case i % 3 when 1 then 'https://app' || (i % 50) || '.example.com'
           when 2 then 'registry.example.com/app:' || (i % 50)
           else '203.0.113.' || (i % 250) end as target,
         case i % 3 when 1 then 'url' when 2 then 'image' else 'ip' end as target_type,
         case when i > $2::integer - 5 then 'running' when i > $2::integer - 10 then 'queued'
           when i % 20 = 0 then 'failed' when i % 20 = 1 then 'cancelled'
           else 'completed' end as status
       from generate_series(1, $2::integer) i
     ) s
     order by s.i`,
    [tenantId, count],
  );
  await client.query('analyze scans');
}

/**
 * Run before the page's own scripts in every document of the context: the token where the
 * sign-in page keeps it (this origin only), and the observer that records when the scans
 * table's rows enter the document and the frame after.
 */
function initScript(origin: string, token: string): string {
  return `(() => {
  if (location.origin !== ${JSON.stringify(origin)}) return;
  sessionStorage.setItem(${JSON.stringify(TOKEN_KEY)}, ${JSON.stringify(token)});
  let painted;
  const mark = { rowsMs: null, frameMs: null, rows: 0, pager: '' };
  mark.done = new Promise((resolve) => { painted = resolve; });
  window.__rampartBench = mark;
  const observer = new MutationObserver(() => {
    const rows = document.querySelectorAll('table.scans tbody tr');
    if (rows.length === 0) return;
    mark.rowsMs = performance.now();
    mark.rows = rows.length;
    mark.pager = document.querySelector('nav.pager span')?.textContent ?? '';
    observer.disconnect();
    requestAnimationFrame(() => {
      mark.frameMs = performance.now();
      painted();
    });
  });
  observer.observe(document, { childList: true, subtree: true });
})()`;
}

/**
 * What the page recorded, once its frame is done (a string: the bench has no DOM types; an
 * evaluated expression, not a waitForFunction string, which the page's CSP forbids to eval).
 */
const READ_MARKS = `(async () => {
  const mark = window.__rampartBench;
  await mark.done;
  const navigation = performance.getEntriesByType('navigation')[0];
  const resources = performance.getEntriesByType('resource');
  const scripts = resources.filter((entry) => entry.initiatorType === 'script');
  const list = resources.find((entry) => new URL(entry.name).pathname === '/api/v1/scans');
  return {
    rowsMs: mark.rowsMs,
    frameMs: mark.frameMs,
    rows: mark.rows,
    pager: mark.pager,
    documentMs: navigation ? navigation.responseEnd : -1,
    scriptMs: Math.max(-1, ...scripts.map((entry) => entry.responseEnd)),
    appMs: navigation ? navigation.domContentLoadedEventStart : -1,
    listRequestMs: list ? list.startTime : -1,
    listAnswerMs: list ? list.responseEnd : -1,
  };
})()`;

async function measureList(
  browser: Browser,
  base: string,
  token: string,
  viewport: { readonly width: number; readonly height: number },
): Promise<ListSample> {
  const context = await browser.newContext({ baseURL: base, viewport });
  try {
    context.setDefaultTimeout(30_000);
    await context.addInitScript({ content: initScript(base, token) });
    const page = await context.newPage();
    const started = performance.now();
    await page.goto('/app/scans', { waitUntil: 'commit' });
    const marks = (await page.evaluate(READ_MARKS)) as Omit<ListSample, 'wallMs'>;
    const wallMs = performance.now() - started;
    return { ...marks, wallMs };
  } finally {
    await context.close();
  }
}

function timing(viewport: string, samples: readonly ListSample[]): ListTiming {
  const frames = samples.map((sample) => sample.frameMs);
  return {
    viewport,
    samples,
    medianMs: Number(quantile(frames, 0.5).toFixed(1)),
    p95Ms: Number(quantile(frames, 0.95).toFixed(1)),
  };
}

export async function benchDashboard(): Promise<DashboardBenchResult> {
  await ensureDashboardBuilt();
  const size = measureDashboardSize();
  return withSchema(async (schema) => {
    // API only: the queued and running scans stay as seeded.
    const server = await startBuiltServer({ root: ROOT, port: PORT, schema, jwtSecret: SECRET });
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    let browser: Browser | null = null;
    try {
      await client.query(`set search_path to ${schema}`);
      const tenantId = randomUUID();
      await seedScans(client, tenantId, SCANS);
      const token = await signToken(SECRET, { subject: 'bench', tenantId }, 3600);
      const base = `http://127.0.0.1:${PORT}`;
      browser = await launchChromium();
      await measureList(browser, base, token, LAPTOP);
      const laptop: ListSample[] = [];
      for (let run = 0; run < RUNS; run++) {
        laptop.push(await measureList(browser, base, token, LAPTOP));
      }
      const phone = [await measureList(browser, base, token, PHONE)];
      return {
        date: new Date().toISOString(),
        loadAverage: loadavg().map((load) => Number(load.toFixed(1))),
        size,
        laptop: timing(`laptop ${LAPTOP.width}×${LAPTOP.height}`, laptop),
        phone: timing(`phone ${PHONE.width}×${PHONE.height}`, phone),
      };
    } finally {
      await browser?.close();
      await client.end();
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
  });
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (value: number) => `${Math.round(value)} ms`;

export function reportDashboard(result: DashboardBenchResult): void {
  const { size } = result;
  console.log(`\nDashboard (issue 26; load average ${result.loadAverage.join(' ')}):`);
  console.table(
    size.assets.map((asset) => ({
      file: asset.file,
      initial: asset.initial,
      bytes: asset.bytes,
      'gzip -9': asset.gzip,
      'brotli 11': asset.brotli,
    })),
  );
  console.log(
    `JavaScript: ${kb(size.js.gzip)} gzipped, ${kb(size.js.brotli)} brotli, ${kb(size.js.bytes)} raw ` +
      `(loaded by index.html: ${kb(size.initialJs.gzip)} gzipped); CSS ${kb(size.css.gzip)} gzipped; ` +
      `target < ${JS_TARGET_KB} KB gzipped: ${size.js.gzip < JS_TARGET_KB * 1024 ? 'met' : 'NOT met'}`,
  );
  for (const list of [result.laptop, result.phone]) {
    const samples = list.samples;
    const median = (pick: (sample: ListSample) => number) => ms(quantile(samples.map(pick), 0.5));
    const wrong = samples.filter(
      (sample) =>
        sample.rows !== 50 || !sample.pager.includes(`${SCANS.toLocaleString('en')} scans`),
    );
    console.log(
      `/app/scans, ${SCANS.toLocaleString('en')} scans, ${list.viewport}, ${samples.length} fresh context(s): ` +
        `rows painted median ${ms(list.medianMs)}, p95 ${ms(list.p95Ms)} ` +
        `(runs ${samples.map((sample) => Math.round(sample.frameMs)).join(', ')}); ` +
        `medians: document ${median((s) => s.documentMs)}, script ${median((s) => s.scriptMs)}, ` +
        `app started ${median((s) => s.appMs)}, ` +
        `list call ${median((s) => s.listRequestMs)} → ${median((s) => s.listAnswerMs)}, ` +
        `rows in the document ${median((s) => s.rowsMs)}, driver's wall time ${median((s) => s.wallMs)}; ` +
        `${samples[0]?.rows ?? 0} rows, pager "${samples[0]?.pager ?? ''}"`,
    );
    if (wrong.length > 0) {
      console.log(
        `INVALID: ${wrong.length} run(s) did not render 50 rows of ${SCANS.toLocaleString('en')} scans`,
      );
    }
  }
  console.log(
    `target (rows painted < ${LIST_TARGET_MS} ms, laptop p95): ${result.laptop.p95Ms < LIST_TARGET_MS ? 'met' : 'NOT met'}`,
  );
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  reportDashboard(await benchDashboard());
}
