/**
 * trivy JSON (`--format json`) to findings, as a stream: `createTrivyParser` takes the report in
 * chunks of any size and never holds the whole document. `parseTrivyJson` is the same parser fed
 * one chunk. Deterministic and free of I/O: the worker adds ids and times.
 *
 * Four shapes occur (FORMATS.md), told apart by the first token and the top-level keys:
 * - the literal `null` (old releases with nothing to report): clean, no findings;
 * - a top-level array of results (releases before `SchemaVersion`);
 * - an object with `SchemaVersion` / `ArtifactName` / `Results` (today's image, fs, repo reports);
 * - a Kubernetes report `{ ClusterName, Resources: [{ Namespace, Kind, Name, Results, Error? }] }`,
 *   also the older cluster layout whose top-level `Vulnerabilities` / `Misconfigurations` arrays
 *   hold resources.
 *
 * `record-walker.ts` walks the document and hands on each record with where it sits;
 * `records.ts` turns one record into a finding; this module puts the findings together (one
 * finding per vulnerability however many copies of its package there are) and adds the counts of
 * records that gave none to the walker's warnings. Memory stays one record at a time plus the
 * findings themselves; a cut-off report (a cancelled or killed run) keeps every record that was
 * complete before the cut.
 */

import type { DraftFinding, FindingLocation, ParseResult } from '../../domain/findings/finding.js';
import type { ParseContext, StreamingReportParser } from '../engine.js';
import { createRecordWalker, type WalkSummary } from './record-walker.js';
import { recordFinding, type SkipReason, withAnotherPackagePath } from './records.js';

/** The finding location: the repository URL for repository scans, nothing for images (README). */
function scanLocation(context: ParseContext): FindingLocation {
  return {
    host: null,
    port: null,
    protocol: null,
    url: context.target.type === 'url' ? context.target.value : null,
  };
}

const SKIP_WARNINGS: Readonly<Record<SkipReason, (count: number) => string | null>> = {
  'no-id': (count) => `${count} trivy record(s) without an id were skipped`,
  'not-affected': (count) =>
    `${count} vulnerability record(s) with status not_affected were left out`,
  // PASS and EXCEPTION rows only appear with --include-non-failures, which is never passed.
  'not-failed': () => null,
};

/**
 * A streaming parser of trivy JSON (any of the four shapes). Never throws: empty, non-JSON,
 * cut-off or foreign input gives what could be read plus warnings; resources trivy could not scan
 * (`Error`) are warnings, never clean; misconfiguration PASS rows are not findings.
 */
export function createTrivyParser(context: ParseContext): StreamingReportParser {
  const location = scanLocation(context);
  const findings: DraftFinding[] = [];
  /** Vulnerability findings by rule id, to fold further copies of a package into the first. */
  const vulnerabilities = new Map<string, { readonly index: number; seen: number }>();
  const skipped: Record<SkipReason, number> = { 'no-id': 0, 'not-affected': 0, 'not-failed': 0 };
  let summary: WalkSummary | null = null;

  const walker = createRecordWalker((kind, record, position) => {
    const outcome = recordFinding(kind, record, { ...position, location });
    if (outcome.finding === undefined) {
      skipped[outcome.skipped] += 1;
      return;
    }
    if (kind !== 'Vulnerabilities') {
      findings.push(outcome.finding);
      return;
    }
    const earlier = vulnerabilities.get(outcome.finding.ruleId);
    if (earlier === undefined) {
      vulnerabilities.set(outcome.finding.ruleId, { index: findings.length, seen: 1 });
      findings.push(outcome.finding);
      return;
    }
    earlier.seen += 1;
    const kept = findings[earlier.index];
    if (kept !== undefined) {
      findings[earlier.index] = withAnotherPackagePath(kept, record, earlier.seen);
    }
  });

  return {
    write(chunk: string): void {
      walker.write(chunk);
    },
    end(): ParseResult {
      if (summary === null) {
        summary = walker.end();
        skipped['no-id'] += summary.malformedRecords;
      }
      const skipWarnings = (Object.keys(skipped) as SkipReason[])
        .filter((reason) => skipped[reason] > 0)
        .map((reason) => SKIP_WARNINGS[reason](skipped[reason]))
        .filter((warning): warning is string => warning !== null);
      return {
        findings: [...findings],
        warnings: [...summary.warnings, ...skipWarnings],
      };
    },
  };
}

/**
 * Parses a whole trivy JSON report: `createTrivyParser` fed the text as one chunk, so both give
 * the same result for any chunking.
 */
export function parseTrivyJson(report: string, context: ParseContext): ParseResult {
  const parser = createTrivyParser(context);
  parser.write(typeof report === 'string' ? report : '');
  return parser.end();
}
