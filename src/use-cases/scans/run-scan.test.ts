import { describe, expect, it } from 'vitest';
import { engineTarget, fakeScanRecord } from '../../../test/support/engine-runs.js';
import { createSecretBox, secretsKeyId } from '../../adapters/secrets/secret-box.js';
import type { ScanRecord } from '../../domain/scans/scan.js';
import type { TargetType } from '../../domain/targets/target.js';
import type { EngineName } from '../../engines/engine.js';
import { ENGINES } from '../../engines/registry.js';
import type { EngineRunner, EngineRunRequest } from '../ports/engine-runs.js';
import type { TargetCheck, TargetResolver } from '../ports/scans.js';
import { runScan } from './run-scan.js';

/** A scan as a worker claims it, of `value` as a target of `type` for `engine`. */
function scan(value: string, type: TargetType, engine: EngineName = 'nmap'): ScanRecord {
  return fakeScanRecord(ENGINES[engine], engineTarget(ENGINES[engine], value, type));
}

/** The check's refusal, and the ending it must give the scan. */
function refusal(message: string) {
  const check = { ok: false, code: 'TARGET_NOT_ALLOWED', message } as const;
  return { check, ending: { kind: 'failed', error: { code: check.code, message } } };
}

/**
 * Runs `record` with a resolver answering `check` (keeping each host it was asked about) and a
 * runner that keeps each request.
 */
const WORKER_KEY = Buffer.alloc(32, 1);

async function run(
  record: ScanRecord,
  check: TargetCheck,
  allowPrivateTargets = false,
  signal = new AbortController().signal,
) {
  const requests: EngineRunRequest[] = [];
  const checked: Array<string | null> = [];
  const runner: EngineRunner = {
    async run(request) {
      requests.push(request);
      return { findings: [], warnings: [], ending: 'completed', message: null };
    },
  };
  const resolver: TargetResolver = {
    check: async (target) => {
      checked.push(target.host);
      return check;
    },
  };
  const result = await runScan(
    {
      runners: new Map([[record.scanType, runner]]),
      resolver,
      allowPrivateTargets,
      secrets: createSecretBox(WORKER_KEY),
    },
    record,
    signal,
    () => {},
  );
  return { result, requests, checked };
}

describe('runScan: the pin handed to the engine', () => {
  it.each<[string, ScanRecord, readonly string[], boolean, string | null]>([
    [
      'a name: the first IPv4 address the check judged',
      scan('example.com', 'domain'),
      ['2001:db8::10', '203.0.113.10', '203.0.113.11'],
      false,
      '203.0.113.10',
    ],
    [
      'a name with only IPv6 addresses: the first of them',
      scan('example.com', 'domain'),
      ['2001:db8::10', '2001:db8::11'],
      true,
      '2001:db8::10',
    ],
    ['an address: the literal', scan('203.0.113.7', 'ip'), ['203.0.113.7'], false, '203.0.113.7'],
    ['a network: none', scan('203.0.113.0/24', 'network'), [], true, null],
  ])('%s', async (_name, record, addresses, allowPrivateTargets, address) => {
    const { result, requests } = await run(record, { ok: true, addresses }, allowPrivateTargets);
    expect(result.ending).toEqual({ kind: 'completed' });
    expect(requests.map((request) => request.pin)).toEqual([
      { address, privateTargetsAllowed: allowPrivateTargets },
    ]);
  });

  it('fails the scan with the check’s code and starts nothing when the check refuses', async () => {
    const refused = refusal('example.com resolves to 10.0.0.5, a private address');
    const { result, requests } = await run(scan('example.com', 'domain'), refused.check);
    expect(result.ending).toEqual(refused.ending);
    expect(requests).toEqual([]);
  });
});

describe('runScan: a run aborted before its engine starts', () => {
  it('ends cancelled and never starts the engine', async () => {
    // The worker stopped, or the scan was cancelled, while it was being set up.
    const controller = new AbortController();
    controller.abort('shutdown');
    const { result, requests } = await run(
      scan('example.com', 'domain'),
      { ok: true, addresses: ['203.0.113.10'] },
      false,
      controller.signal,
    );
    expect(requests).toEqual([]);
    expect(result.ending).toEqual({ kind: 'cancelled' });
    expect(result.findings).toEqual([]);
  });
});

describe('runScan: image registries', () => {
  it('judges a named registry like any host and fails the scan when it is refused', async () => {
    const refused = refusal('localhost resolves to 127.0.0.1, a loopback address');
    const { result, requests, checked } = await run(
      scan('localhost:5000/app:1', 'image', 'trivy'),
      refused.check,
    );
    expect(checked).toEqual(['localhost']);
    expect(result.ending).toEqual(refused.ending);
    expect(requests).toEqual([]);
  });

  it('runs an image whose registry was allowed, and checks nothing for one without a registry', async () => {
    const allowed = await run(scan('ghcr.io/acme/app:1', 'image', 'trivy'), {
      ok: true,
      addresses: ['203.0.113.20'],
    });
    expect(allowed.checked).toEqual(['ghcr.io']);
    expect(allowed.result.ending).toEqual({ kind: 'completed' });
    const hub = await run(scan('alpine:3.19', 'image', 'trivy'), { ok: true, addresses: [] });
    expect(hub.checked).toEqual([]);
    expect(hub.result.ending).toEqual({ kind: 'completed' });
  });
});

describe('runScan: credentials at rest', () => {
  const auth = (password: string) => ({
    authentication: {
      type: 'form',
      loginUrl: 'https://app.example/login',
      usernameField: 'user',
      passwordField: 'pass',
      username: 'alice',
      password,
    },
  });
  const zapScan = (password: string) =>
    fakeScanRecord(
      ENGINES.zap,
      engineTarget(ENGINES.zap, 'https://app.example/', 'url'),
      auth(password),
    );
  const public_ = { ok: true, addresses: ['203.0.113.30'] } as const;

  it('hands the scanner the credential opened, while the scan record keeps it sealed', async () => {
    const record = zapScan('');
    const sealed = createSecretBox(WORKER_KEY).seal('hunter2', record.tenantId);
    const { result, requests } = await run({ ...record, options: auth(sealed) }, public_);
    expect(result.ending).toEqual({ kind: 'completed' });
    expect(requests[0]?.options).toMatchObject(auth('hunter2'));
    expect(requests[0]?.scan.options).toEqual(auth(sealed));
  });

  it('fails with ENGINE_ERROR naming the key, and starts nothing, when no key opens it', async () => {
    const otherKey = Buffer.alloc(32, 9);
    const record = zapScan('');
    const sealed = createSecretBox(otherKey).seal('hunter2', record.tenantId);
    const { result, requests } = await run({ ...record, options: auth(sealed) }, public_);
    expect(result.ending).toEqual({
      kind: 'failed',
      error: {
        code: 'ENGINE_ERROR',
        message: `The scan cannot start: a stored credential cannot be decrypted: it was sealed with key ${secretsKeyId(otherKey)}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`,
      },
    });
    expect(requests).toEqual([]);
  });
});
