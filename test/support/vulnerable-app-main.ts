/**
 * The deliberately vulnerable test app as a process of its own (run with tsx): prints its URL on
 * the first line of stdout and serves until killed. Tests that let sqlmap run its time-based
 * payloads use it: `pg_sleep` holds the app's in-process PGlite, and with it the whole process,
 * which must not be the test's own (it hosts the API and the workers).
 */
import { startVulnerableApp } from './vulnerable-app.js';

const app = await startVulnerableApp();
process.stdout.write(`${app.url}\n`);
const stop = () => {
  void app.close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
