/**
 * SCANNER_SANDBOX at start: `off` runs scanners as the service's own user, `auto` sandboxes when
 * this machine can and otherwise starts with a warning naming what is missing (so `npm start`
 * works for a non-root user on a laptop), `required` refuses to start without the sandbox.
 */
import type { Logger } from 'pino';
import { detectSandbox } from '../adapters/process/detect-sandbox.js';
import { findOnPath } from '../adapters/process/probe-binaries.js';
import type { Sandbox } from '../adapters/process/sandbox.js';
import type { Config } from '../config/load-config.js';

/** Thrown for SCANNER_SANDBOX=required on a machine that cannot sandbox; the start fails. */
export class SandboxUnavailableError extends Error {
  constructor(readonly missing: readonly string[]) {
    super(`SCANNER_SANDBOX=required, but the scanner sandbox needs ${missing.join(', ')}`);
    this.name = 'SandboxUnavailableError';
  }
}

/** The sandbox scanners run in, or null when SCANNER_SANDBOX says to do without. */
export async function scannerSandbox(config: Config, logger: Logger): Promise<Sandbox | null> {
  const settings = config.scannerSandbox;
  if (settings.mode === 'off') {
    logger.info('SCANNER_SANDBOX=off: scanners run as the service user, without a sandbox');
    await warnWithoutParentDeathSignal(config, logger);
    return null;
  }
  const detected = await detectSandbox(settings, config.scannerPath ?? '');
  if (detected.ok) {
    logger.info({ user: settings.user }, 'scanners run in the sandbox');
    return detected.sandbox;
  }
  if (settings.mode === 'required') {
    throw new SandboxUnavailableError(detected.missing);
  }
  logger.warn(
    { missing: detected.missing },
    `scanners run WITHOUT a sandbox (SCANNER_SANDBOX=auto); missing: ${detected.missing.join(', ')}`,
  );
  await warnWithoutParentDeathSignal(config, logger);
  return null;
}

/**
 * Outside the sandbox a scanner dies with its worker through `setpriv --pdeathsig KILL`
 * (process-engine-runner.ts); without setpriv, one of a killed worker runs on until the next
 * worker start kills it (workspace-owners.ts). Said once, at start.
 */
async function warnWithoutParentDeathSignal(config: Config, logger: Logger): Promise<void> {
  if ((await findOnPath('setpriv', config.scannerPath ?? '')) === null) {
    logger.warn(
      'setpriv (Debian package util-linux) is not on PATH: the scanners of a worker process that is killed (kill -9) run on until the next worker start ends them',
    );
  }
}
