/**
 * How a sentinel scan ends once every child has ended, pure: its children's findings correlated
 * (or kept apart with `correlate: false`), scored (with `riskScore: true`), summarized, and the
 * parent's ending. The parent completes when at least one child completed; it fails only when
 * none did, with the children's common error code when they all failed alike, else ENGINE_ERROR,
 * and a message naming each child's end. Findings of every child are kept, whatever its end
 * (a timed-out or cancelled child's partial findings included).
 */
import type { FindingsSummary, FingerprintedFinding } from '../../domain/findings/finding.js';
import { riskScore, summarizeFindings } from '../../domain/findings/summary.js';
import { normalizeAddress } from '../../domain/network/ip-allowlist.js';
import type { ScanError } from '../../domain/scans/scan.js';
import type { ScanStatus } from '../../domain/scans/status-machine.js';
import { correlate, uncorrelated } from './correlate.js';
import { assessScan, scoreFindings } from './risk.js';
import type {
  CorrelatedFinding,
  FindingSource,
  RiskAssessment,
  RiskFactor,
  SourceFinding,
} from './types.js';

export interface SentinelChildEnd {
  readonly id: string;
  readonly engine: string;
  readonly status: ScanStatus;
  readonly error: ScanError | null;
  /** The child's target and its type (nmap's findings are re-homed onto a named target). */
  readonly target: string;
  readonly targetType: string;
}

export interface SentinelAggregateInput {
  readonly correlate: boolean;
  readonly riskScore: boolean;
  readonly children: readonly SentinelChildEnd[];
  readonly findings: readonly SourceFinding[];
}

/** A parent finding ready to store: the finding, its engine and what the sentinel adds. */
export interface SentinelFindingRow extends FingerprintedFinding {
  readonly engine: string;
  readonly correlationColumns: {
    readonly sources: readonly StoredSource[];
    readonly correlatedBy: readonly string[];
    readonly risk: RiskAssessment | null;
  };
}

/** A source as stored and shown: the original finding without `raw` (its own scan keeps it). */
export interface StoredSource {
  readonly engine: string;
  readonly scanId: string;
  readonly findingId: string;
  readonly confidence: string;
  readonly finding: Omit<
    SourceFinding,
    'raw' | 'engine' | 'scanId' | 'findingId' | 'location' | 'identifiers' | 'references'
  > & {
    readonly location: SourceFinding['location'];
    readonly identifiers: { readonly cve: readonly string[]; readonly cwe: readonly string[] };
    readonly references: readonly string[];
  };
}

export interface SentinelAggregate {
  readonly ending:
    | { readonly kind: 'completed' }
    | { readonly kind: 'failed'; readonly error: ScanError };
  readonly findings: readonly SentinelFindingRow[];
  readonly summary: FindingsSummary;
  readonly riskScore: number;
  /** The scan's risk factors (riskScore on), else null. */
  readonly riskFactors: readonly RiskFactor[] | null;
}

function storedSource(source: FindingSource): StoredSource {
  const {
    raw: _raw,
    engine: _engine,
    scanId: _scanId,
    findingId: _id,
    ...finding
  } = source.finding;
  return {
    engine: source.engine,
    scanId: source.scanId,
    findingId: source.findingId,
    confidence: source.confidence,
    finding,
  };
}

function toRow(finding: CorrelatedFinding, risk: RiskAssessment | null): SentinelFindingRow {
  const { sources, correlatedBy, ...fields } = finding;
  return {
    ...fields,
    correlationColumns: { sources: sources.map(storedSource), correlatedBy, risk },
  };
}

function describeEnd(child: SentinelChildEnd): string {
  if (child.status === 'failed' && child.error !== null) {
    return `${child.engine} failed (${child.error.code}: ${child.error.message})`;
  }
  return `${child.engine} ${child.status === 'cancelled' ? 'was cancelled' : child.status}`;
}

/** The parent's ending from its children's (all of which have ended). */
export function sentinelEnding(children: readonly SentinelChildEnd[]): SentinelAggregate['ending'] {
  if (children.some((child) => child.status === 'completed')) {
    return { kind: 'completed' };
  }
  const codes = new Set(children.map((child) => child.error?.code ?? child.status));
  const [only] = codes;
  const code =
    codes.size === 1 && only !== undefined && children.every((c) => c.status === 'failed')
      ? only
      : 'ENGINE_ERROR';
  return {
    kind: 'failed',
    error: {
      code,
      message: `No engine of this sentinel scan completed: ${children.map(describeEnd).join('; ')}`,
    },
  };
}

const isAddress = (text: string) => normalizeAddress(text) !== null;

/**
 * nmap reports the address it scanned, the web engines the name they were given: for a sentinel
 * scan of `shop.example.com`, nmap's port 443 sits at 203.0.113.7 and nuclei's TLS detection at
 * shop.example.com, and they could never be correlated. A sentinel nmap child scans exactly one
 * host, its target, so its findings at an address are moved onto the target's name.
 */
export function rehomeNmapFindings(
  findings: readonly SourceFinding[],
  children: readonly SentinelChildEnd[],
): SourceFinding[] {
  const named = new Map(
    children
      .filter(
        (child) =>
          child.engine === 'nmap' && (child.targetType === 'domain' || child.targetType === 'host'),
      )
      .filter((child) => !isAddress(child.target))
      .map((child) => [child.id, child.target.toLowerCase()]),
  );
  if (named.size === 0) {
    return [...findings];
  }
  return findings.map((finding) => {
    const name = named.get(finding.scanId);
    const host = finding.location.host;
    return name === undefined || host === null || !isAddress(host)
      ? finding
      : { ...finding, location: { ...finding.location, host: name } };
  });
}

export function aggregateSentinel(input: SentinelAggregateInput): SentinelAggregate {
  const sources = rehomeNmapFindings(input.findings, input.children);
  const merged = input.correlate ? correlate(sources) : uncorrelated(sources);
  const summary = summarizeFindings(merged);
  if (!input.riskScore) {
    return {
      ending: sentinelEnding(input.children),
      findings: merged.map((finding) => toRow(finding, null)),
      summary,
      riskScore: riskScore(summary),
      riskFactors: null,
    };
  }
  const scored = scoreFindings(merged);
  const scan = assessScan(scored);
  return {
    ending: sentinelEnding(input.children),
    findings: scored.map(({ risk, ...finding }) => toRow(finding, risk)),
    summary,
    riskScore: scan.score,
    riskFactors: scan.factors,
  };
}
