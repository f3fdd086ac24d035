/**
 * SCANNER_SANDBOX at start: `off` builds no sandbox, `auto` starts without one and warns naming
 * what is missing, `required` refuses to start naming it. A scanner user that does not exist is
 * what is missing here, on any machine.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { SandboxUnavailableError, scannerSandbox } from './scanner-sandbox.js';

function capture(): {
  readonly logger: pino.Logger;
  readonly lines: () => Array<Record<string, unknown>>;
} {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  return {
    logger: pino({ level: 'info' }, stream),
    lines: () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
  };
}

const config = (mode: string) =>
  loadConfig({
    SCANNER_SANDBOX: mode,
    SCANNER_USER: 'rampart-no-such-user',
    PATH: process.env.PATH,
  });

describe('scannerSandbox', () => {
  it('off: no sandbox, and says so', async () => {
    const log = capture();
    expect(await scannerSandbox(config('off'), log.logger)).toBeNull();
    expect(log.lines()).toMatchObject([
      {
        level: 30,
        msg: 'SCANNER_SANDBOX=off: scanners run as the service user, without a sandbox',
      },
    ]);
  });

  it('auto: starts without a sandbox and warns naming what is missing', async () => {
    const log = capture();
    expect(await scannerSandbox(config('auto'), log.logger)).toBeNull();
    const [warning] = log.lines();
    expect(warning).toMatchObject({ level: 40 });
    expect(warning?.missing).toContain(
      'the scanner user rampart-no-such-user (useradd -r -s /usr/sbin/nologin rampart-no-such-user)',
    );
    expect(warning?.msg).toMatch(
      /^scanners run WITHOUT a sandbox \(SCANNER_SANDBOX=auto\); missing: .*the scanner user rampart-no-such-user/,
    );
  });

  it('required: refuses, naming what is missing', async () => {
    const log = capture();
    const refused = scannerSandbox(config('required'), log.logger);
    await expect(refused).rejects.toBeInstanceOf(SandboxUnavailableError);
    await expect(refused).rejects.toThrow(
      /^SCANNER_SANDBOX=required, but the scanner sandbox needs .*the scanner user rampart-no-such-user/,
    );
  });
});
