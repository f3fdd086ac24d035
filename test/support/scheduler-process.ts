/**
 * A scheduler process for the multi-process schedule test and bench (run with tsx): the
 * production scheduler (startProcessScheduler) over PostgreSQL, with an injected clock fixed at
 * RAMPART_TEST_NOW, every engine runnable, and a target resolver that admits every name. With
 * RAMPART_TEST_HANG_AT=<n> the n-th target check never returns: the process then holds its claim
 * (rows locked; the checks come before the claim's first write, so nothing is written) and
 * prints "holding" so that a test can SIGKILL it mid-claim. With
 * RAMPART_TEST_HOLD_AFTER_SCANS=<n> (a test hook of this test process only: production code has no
 * such switch) the claim holds once <n> of its scans have been stored in its transaction, after
 * the claim's occurrences were reserved: it reads them back through the transaction and prints
 * "holding after scans <ids as JSON>", then waits forever without committing.
 *
 * Env: DATABASE_URL, RAMPART_TEST_SCHEMA, RAMPART_TEST_NOW, SCHEDULER_POLL_MS, RAMPART_TEST_HANG_AT,
 * RAMPART_TEST_HOLD_AFTER_SCANS.
 * Prints "ready" once its scheduler runs.
 */
import { connectPostgres } from '../../src/adapters/db/connect.js';
import { createLogger } from '../../src/adapters/http/logger.js';
import { createScheduleClaimer } from '../../src/adapters/queue/claim-schedules.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { ScanRecord } from '../../src/domain/scans/scan.js';
import { ENGINE_NAMES } from '../../src/engines/engine.js';
import { startProcessScheduler } from '../../src/main/scheduler.js';
import { sentinelLifecycle } from '../../src/main/workers.js';
import { NO_METRICS } from '../../src/use-cases/ports/metrics.js';
import type { ScanStore, TargetResolver } from '../../src/use-cases/ports/scans.js';
import type { ScheduleClaimer } from '../../src/use-cases/ports/schedules.js';
import { testSecretBox } from './secrets.js';

const env = process.env;
const config = loadConfig({ ...env, WORKERS: '1', LOG_LEVEL: 'warn' });
const schema = env.RAMPART_TEST_SCHEMA;
const database = connectPostgres(config.databaseUrl ?? '', {
  ...(schema ? { schema } : {}),
  poolSize: 4,
});
const now = new Date(env.RAMPART_TEST_NOW ?? Date.now());
const hangAt = Number(env.RAMPART_TEST_HANG_AT ?? '0');
let checks = 0;
const resolver: TargetResolver = {
  async check() {
    checks += 1;
    if (checks === hangAt) {
      process.stdout.write('holding\n');
      await new Promise(() => {});
    }
    return { ok: true, addresses: ['203.0.113.7'] };
  },
};
/**
 * The real claimer, its claims' scan store wrapped so that the process holds the claim (rows
 * locked, occurrences reserved, scans stored, nothing committed) after `holdAfterScans` scans.
 */
const holdAfterScans = Number(env.RAMPART_TEST_HOLD_AFTER_SCANS ?? '0');
const realClaimer = createScheduleClaimer(database);
const claimer: ScheduleClaimer = {
  claimDue: (claimNow, limit, work) =>
    realClaimer.claimDue(claimNow, limit, (claim) => {
      if (holdAfterScans <= 0) {
        return work(claim);
      }
      const stored: ScanRecord[] = [];
      const insert: ScanStore['insert'] = async (scan, quotaMonth) => {
        const created = await claim.scans.insert(scan, quotaMonth);
        if (created !== null) {
          stored.push(created);
          if (stored.length === holdAfterScans) {
            // Read back through the claim's transaction: the scans are written, uncommitted.
            const seen = await Promise.all(
              stored.map((one) => claim.scans.get(one.tenantId, one.id)),
            );
            const ids = seen.flatMap((one) => (one === null ? [] : [one.id]));
            process.stdout.write(`holding after scans ${JSON.stringify(ids)}\n`);
            await new Promise(() => {});
          }
        }
        return created;
      };
      return work({ ...claim, scans: { ...claim.scans, insert } });
    }),
};
const runnable = new Map(ENGINE_NAMES.map((name) => [name, { sandboxed: false }]));
const scheduler = startProcessScheduler({
  config,
  database,
  resolver,
  secrets: testSecretBox(),
  childScans: sentinelLifecycle(database),
  logger: createLogger('warn'),
  metrics: NO_METRICS,
  clock: { now: () => now },
  workers: { runnableEngines: async () => runnable },
  claimer,
});
// The loop's timer is unref()'d: hold the process open until SIGTERM (or SIGKILL).
const keepAlive = setInterval(() => {}, 2 ** 31 - 1);
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void Promise.resolve(scheduler?.stop())
    .then(() => database.close())
    .finally(() => clearInterval(keepAlive))
    .then(() => process.exit(0));
});
