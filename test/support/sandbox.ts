/**
 * The scanner sandbox as a worker on this machine builds it (`scannerSandbox`, with the test
 * process's SCANNER_SANDBOX, SCANNER_USER and PATH; default `auto`): in CI, as root with the
 * scanner user that `.ci/run` creates, every real-tool and double run of the suite is sandboxed;
 * on a laptop without bwrap it is null and the runs go as before. SCANNER_SANDBOX=required makes
 * a machine that cannot sandbox fail here instead of testing less.
 */
import pino from 'pino';
import type { Sandbox } from '../../src/adapters/process/sandbox.js';
import { loadConfig } from '../../src/config/load-config.js';
import { scannerSandbox } from '../../src/main/scanner-sandbox.js';

export const TEST_SANDBOX: Sandbox | null = await scannerSandbox(
  loadConfig({
    SCANNER_SANDBOX: process.env.SCANNER_SANDBOX,
    SCANNER_USER: process.env.SCANNER_USER,
    PATH: process.env.PATH,
  }),
  pino({ level: 'silent' }),
);
