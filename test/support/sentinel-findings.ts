/**
 * Source findings for the sentinel correlation tests and the correlation benchmark: a factory for
 * hand-made ones, and real scanner output from `../shared/fixtures/scanner-output/<engine>/`
 * parsed with each engine's own `command.parse`, optionally moved onto another host ("as if both
 * had scanned the same host": the fixtures come from scans of different targets), then
 * fingerprinted with `finalizeFindings` and given synthetic scan and finding ids.
 */
import { readFileSync } from 'node:fs';
import type { DraftFinding, FindingLocation } from '../../src/domain/findings/finding.js';
import { finalizeFindings, fingerprintFinding } from '../../src/domain/findings/fingerprint.js';
import { parseTarget } from '../../src/domain/targets/parse-target.js';
import type { EngineName } from '../../src/engines/engine.js';
import { ENGINES, isConfirmedBy } from '../../src/engines/registry.js';
import type { SourceFinding } from '../../src/engines/sentinel/types.js';
import { sharedPath } from './shared-dir.js';

let counter = 0;

/** What a test may override of a source finding; the location field by field. */
export type SourceOverrides = Omit<Partial<SourceFinding>, 'location'> & {
  readonly location?: Partial<FindingLocation>;
};

/**
 * A hand-made source finding: an nmap open port on 203.0.113.10:22 unless overridden. The
 * fingerprint is computed from engine, rule id and location as the worker would, and scanId and
 * findingId default to `scan-<engine>` and a fresh `f<n>`.
 */
export function sourceFinding(overrides: SourceOverrides = {}): SourceFinding {
  counter += 1;
  const engine = overrides.engine ?? 'nmap';
  const draft: DraftFinding = {
    ruleId: 'open-port',
    title: 'Open port 22/tcp (ssh)',
    severity: 'info',
    toolSeverity: null,
    category: 'open-port',
    identifiers: { cve: [], cwe: [] },
    description: null,
    evidence: null,
    remediation: null,
    references: [],
    raw: {},
    ...overrides,
    location: {
      host: '203.0.113.10',
      port: 22,
      protocol: 'tcp',
      url: null,
      ...overrides.location,
    },
  };
  return {
    ...draft,
    fingerprint: overrides.fingerprint ?? fingerprintFinding(engine, draft),
    engine,
    scanId: overrides.scanId ?? `scan-${engine}`,
    findingId: overrides.findingId ?? `f${counter}`,
  };
}

/** The drafts an engine's parser makes of a real fixture, for a scan of `target`. */
export function parseFixture(engine: EngineName, file: string, target: string): DraftFinding[] {
  const definition = ENGINES[engine];
  const parsed = parseTarget(target, undefined, [...definition.targetTypes, 'image']);
  if (!parsed.ok || definition.kind !== 'tool') {
    throw new Error(`cannot parse ${engine} fixture ${file} for target ${target}`);
  }
  const text = readFileSync(sharedPath('fixtures', 'scanner-output', engine, file), 'utf8');
  return [...definition.command.parse(text, { target: parsed.target }).findings];
}

/** `https://a.example:8443` → its parts; a bare host → the host alone. */
function placeOf(place: string): { host: string; origin: URL | null } {
  if (!place.includes('://')) {
    return { host: place, origin: null };
  }
  const origin = new URL(place);
  return { host: origin.hostname, origin };
}

function defaultPort(url: URL): number {
  return url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
}

/**
 * Moves the drafts found on `from` onto `to`, as if the tool had scanned `to`. Both are hosts
 * (only the host changes, in the location and in the URL) or both origins (`https://a.example`:
 * scheme, host and port change; paths and queries stay). Drafts on other hosts are unchanged.
 */
export function rehome(drafts: readonly DraftFinding[], from: string, to: string): DraftFinding[] {
  const source = placeOf(from);
  const target = placeOf(to);
  return drafts.map((draft) => {
    const { location } = draft;
    const url = location.url === null ? null : new URL(location.url);
    const onHost =
      location.host?.toLowerCase() === source.host.toLowerCase() ||
      url?.hostname === source.host.toLowerCase();
    if (!onHost) {
      return draft;
    }
    let movedUrl = url;
    if (url !== null && target.origin !== null) {
      movedUrl = new URL(`${url.pathname}${url.search}`, target.origin);
    } else if (url !== null) {
      movedUrl = new URL(url.href);
      movedUrl.hostname = target.host;
    }
    const port =
      target.origin === null
        ? location.port
        : location.port === null
          ? null
          : defaultPort(target.origin);
    return {
      ...draft,
      location: {
        ...location,
        host: location.host === null ? null : target.host,
        port,
        url: movedUrl === null ? null : movedUrl.href,
      },
    };
  });
}

/**
 * Drafts fingerprinted for `engine` (duplicates folded, as the worker stores them) and wrapped as
 * the source findings of one child scan: scanId `scan-<engine>` unless given, findingIds
 * `<engine>-<n>`.
 */
export function asSources(
  engine: EngineName,
  drafts: readonly DraftFinding[],
  scanId = `scan-${engine}`,
): SourceFinding[] {
  // As the worker does (run-scan.ts): normalized, with the engine's own notion of confirmed.
  return finalizeFindings(engine, drafts, isConfirmedBy(engine)).map((finding, index) => ({
    ...finding,
    engine,
    scanId,
    findingId: `${engine}-${index + 1}`,
  }));
}

/** Parses a real fixture and returns its findings as one child scan's sources. */
export function fixtureSources(
  engine: EngineName,
  file: string,
  target: string,
  move?: { readonly from: string; readonly to: string },
): SourceFinding[] {
  const drafts = parseFixture(engine, file, target);
  return asSources(engine, move === undefined ? drafts : rehome(drafts, move.from, move.to));
}
