import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Webhook tests deliver to HTTPS receivers on 127.0.0.1 whose certificate the test CA signed. Node
// reads NODE_EXTRA_CA_CERTS only when a process starts, so it is set here, before vitest forks the
// test processes (they inherit it), as a deployment would set it for a self-signed receiver. A
// bundle the environment already names is kept: the test CA is added to a copy of it.
const testCa = fileURLToPath(new URL('./test/fixtures/tls/ca.pem', import.meta.url));
const existing = process.env.NODE_EXTRA_CA_CERTS;
if (existing === undefined || existing === '' || !existsSync(existing)) {
  process.env.NODE_EXTRA_CA_CERTS = testCa;
} else if (
  existing !== testCa &&
  !readFileSync(existing, 'utf8').includes(readFileSync(testCa, 'utf8').trim())
) {
  const bundle = join(mkdtempSync(join(tmpdir(), 'rampart-test-ca-')), 'ca-bundle.pem');
  writeFileSync(
    bundle,
    `${readFileSync(existing, 'utf8').trimEnd()}\n${readFileSync(testCa, 'utf8')}`,
  );
  process.env.NODE_EXTRA_CA_CERTS = bundle;
}

/**
 * Files that must run alone, after the others: they load scanner egress rules that deny what other
 * files' scanners reach, or assert times and log lines that a second file's load would change
 * (database faults; processes started, timed out and killed within hundreds of milliseconds).
 */
const RUN_ALONE = [
  'test/e2e/egress-rules.test.ts',
  'test/e2e/scanner-fence.test.ts',
  'test/e2e/worker-kill.test.ts',
  'test/e2e/database-faults.test.ts',
  'test/e2e/scan-end-outage.test.ts',
  'src/adapters/process/run-process.test.ts',
];

// One suite, two backends: RAMPART_TEST_DATABASE_URL set → every test file gets its own schema in
// that PostgreSQL; unset → every test file gets its own in-memory PGlite. The files run two at a
// time on this 2-core machine (they mostly wait on scanners, servers and the database), then the
// RUN_ALONE files one at a time.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Builds dist/ and the dashboard when missing or stale (the tests run the built entry points,
    // the browser tests load /app: test/support/builds.ts) and, on PGlite, dumps one migrated
    // database for the files to load (test/support/pglite-template.ts).
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/**/*.test.ts'],
          exclude: [...RUN_ALONE, '**/node_modules/**'],
          maxWorkers: Math.max(2, availableParallelism()),
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: RUN_ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
