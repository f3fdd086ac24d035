import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

// One suite, two backends: RAMPART_TEST_DATABASE_URL set → every test file gets its own schema in
// that PostgreSQL; unset → every test file gets its own in-memory PGlite.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
