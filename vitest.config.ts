import { defineConfig } from 'vitest/config';

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
