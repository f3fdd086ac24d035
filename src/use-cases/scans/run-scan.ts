/**
 * What a worker does with a claimed scan, between the claim and finish-scan: validate the stored
 * request again (a row is input too), resolve the target's name (an image's registry too) again
 * just before the start (a name that now resolves into a refused range fails with TARGET_NOT_ALLOWED; one that does not
 * resolve with TARGET_UNRESOLVABLE), run the engine pinned to the address that check judged, and
 * turn its output into the ending and the de-duplicated, fingerprinted findings (in the common
 * vocabulary: one severity and category per weakness, weakness-severity.ts) with their summary.
 */

import type {
  DraftFinding,
  FindingsSummary,
  FingerprintedFinding,
} from '../../domain/findings/finding.js';
import { finalizeFindings } from '../../domain/findings/fingerprint.js';
import { riskScore, summarizeFindings } from '../../domain/findings/summary.js';
import type { ScanRecord } from '../../domain/scans/scan.js';
import type { RunEnding } from '../../domain/scans/status-machine.js';
import { parseTarget } from '../../domain/targets/parse-target.js';
import { pinnedAddress } from '../../domain/targets/pin.js';
import type { PrivateTargetPolicy } from '../../domain/targets/private-target-policy.js';
import { isEngineName } from '../../engines/engine.js';
import { ENGINES, isConfirmedBy } from '../../engines/registry.js';
import { checkEngineConfig, checkEngineOptions } from '../../engines/validate-options.js';
import type { EngineRunner } from '../ports/engine-runs.js';
import type { TargetResolver } from '../ports/scans.js';
import { type SecretBox, SecretUnreadableError } from '../ports/secrets.js';
import { openedConfig, openedOptions } from '../secrets/option-secrets.js';

export interface RunScanDeps {
  readonly runners: ReadonlyMap<string, EngineRunner>;
  readonly resolver: TargetResolver;
  readonly allowPrivateTargets: PrivateTargetPolicy;
  /** Opens the stored credentials of the options, here only, for the scanner. */
  readonly secrets: SecretBox;
}

/** The scan's options and config with their credentials in clear, or why they cannot be opened. */
function openOptions(
  secrets: SecretBox,
  scan: ScanRecord,
): { options: Record<string, unknown>; config: Record<string, unknown> } | string {
  try {
    return {
      options: openedOptions(secrets, scan.tenantId, { ...scan.options }),
      config: openedConfig(secrets, scan.tenantId, { ...scan.config }),
    };
  } catch (error) {
    if (error instanceof SecretUnreadableError) {
      return error.message;
    }
    throw error;
  }
}

export interface ScanRunResult {
  readonly ending: RunEnding;
  readonly findings: readonly FingerprintedFinding[];
  readonly summary: FindingsSummary;
  readonly riskScore: number;
  readonly warnings: readonly string[];
  /** For an engine error, the tool's last words: for the service's log, never the scan's error. */
  readonly detail?: string | null;
}

function result(
  engine: string,
  ending: ScanRunResult['ending'],
  drafts: readonly DraftFinding[] = [],
  warnings: readonly string[] = [],
): ScanRunResult {
  const findings = finalizeFindings(engine, drafts, isConfirmedBy(engine));
  const summary = summarizeFindings(findings);
  return { ending, findings, summary, riskScore: riskScore(summary), warnings };
}

const failed = (engine: string, code: string, message: string) =>
  result(engine, { kind: 'failed', error: { code, message } });

export async function runScan(
  deps: RunScanDeps,
  scan: ScanRecord,
  signal: AbortSignal,
  onProgress: (percent: number) => void,
): Promise<ScanRunResult> {
  const engine = isEngineName(scan.scanType) ? ENGINES[scan.scanType] : null;
  const runner = deps.runners.get(scan.scanType);
  if (engine === null || runner === undefined) {
    return failed(scan.scanType, 'ENGINE_ERROR', `This worker cannot run ${scan.scanType} scans`);
  }
  const opened = openOptions(deps.secrets, scan);
  if (typeof opened === 'string') {
    return failed(engine.name, 'ENGINE_ERROR', `The scan cannot start: ${opened}`);
  }
  const target = parseTarget(scan.target, scan.targetType, engine.targetTypes);
  const options = checkEngineOptions(engine, opened.options);
  const config = checkEngineConfig(engine, opened.config);
  if (!target.ok || !options.ok || !config.ok) {
    const why = !target.ok
      ? target.reason
      : !options.ok
        ? options.error.message
        : config.ok
          ? ''
          : config.error.message;
    return failed(
      engine.name,
      'ENGINE_ERROR',
      `The stored scan request is no longer valid: ${why}`,
    );
  }
  let addresses: readonly string[] = [];
  if (target.target.host !== null) {
    const checked = await deps.resolver.check(target.target, deps.allowPrivateTargets);
    if (!checked.ok) {
      return failed(engine.name, checked.code, checked.message);
    }
    addresses = checked.addresses;
  }
  // Aborted while it was being set up (the worker stopping, a cancel): the engine is not started,
  // so no runner has to notice an abort that came before it listened.
  if (signal.aborted) {
    return result(engine.name, { kind: 'cancelled' });
  }
  const output = await runner.run({
    scan,
    target: target.target,
    options: options.options,
    config: config.options,
    pin: {
      address: pinnedAddress(addresses),
      // nuclei's -lna refuses every private address, so it is left out when any is allowed
      // (`true`, or a list of ranges, which is never empty).
      privateTargetsAllowed: deps.allowPrivateTargets !== false,
    },
    signal,
    timeoutMs: scan.timeoutSeconds * 1000,
    onProgress,
  });
  switch (output.ending) {
    case 'completed':
      return result(engine.name, { kind: 'completed' }, output.findings, output.warnings);
    case 'cancelled':
      return result(engine.name, { kind: 'cancelled' }, output.findings, output.warnings);
    case 'timed-out':
      return result(
        engine.name,
        {
          kind: 'failed',
          error: {
            code: 'SCAN_TIMEOUT',
            message: `The scan ran past its timeout of ${scan.timeoutSeconds} seconds; findings so far are kept`,
          },
        },
        output.findings,
        output.warnings,
      );
    case 'engine-error':
      return {
        ...result(
          engine.name,
          {
            kind: 'failed',
            error: { code: 'ENGINE_ERROR', message: output.message ?? `${engine.name} failed` },
          },
          output.findings,
          output.warnings,
        ),
        detail: output.detail ?? null,
      };
  }
}
