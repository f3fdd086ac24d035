/**
 * Results of a scan (results:read): GET /api/v1/scans/:scanId/results as JSON (paged), SARIF 2.1.0,
 * CSV or DefectDojo's Generic Findings Import JSON (the whole result as a file), and GET /api/v1/scans/:scanId/findings (paged, filtered).
 * Results exist once a scan has ended: completed scans give `partial: false`; cancelled and failed
 * scans give the findings collected so far with `partial: true`; queued and running scans answer
 * 409 RESULTS_NOT_READY.
 */
import { ApiError } from '../../domain/errors.js';
import { csvHeaderLine, csvRecordLine } from '../../domain/findings/csv.js';
import { createDefectDojoWriter } from '../../domain/findings/defectdojo.js';
import type { Severity } from '../../domain/findings/finding.js';
import { createSarifRuleCollector, createSarifWriter } from '../../domain/findings/sarif.js';
import { withTriageInEffect } from '../../domain/issues/triage.js';
import type { ScanRecord } from '../../domain/scans/scan.js';
import { isTerminal } from '../../domain/scans/status-machine.js';
import { runsAsChildScans } from '../../engines/registry.js';
import type { Page } from '../ports/common.js';
import type { ScanFindingFilter, ScanStore } from '../ports/scans.js';
import {
  type FindingView,
  type Pagination,
  pagination,
  type SentinelView,
  toFindingView,
} from './scan-view.js';

async function endedScan(scans: ScanStore, tenantId: string, id: string): Promise<ScanRecord> {
  const scan = await scans.get(tenantId, id);
  if (scan === null) {
    throw new ApiError('SCAN_NOT_FOUND');
  }
  if (!isTerminal(scan.status)) {
    throw new ApiError('RESULTS_NOT_READY', { status: scan.status });
  }
  return scan;
}

/** No filter: every finding of the scan. */
const ALL_FINDINGS: ScanFindingFilter = { severity: null, engine: null, triage: null };

export interface ResultsView {
  scanId: string;
  status: string;
  partial: boolean;
  summary: Record<Severity, number>;
  riskScore: number;
  findings: FindingView[];
  pagination: Pagination;
  /** Sentinel scans: the scan's risk factors and each child's engine, status and counts. */
  sentinel?: SentinelView;
  /**
   * Only when retention deleted the scan's findings (RETENTION_FINDINGS_DAYS): when. `findings` is
   * then empty while `summary` and `riskScore` keep what the scan found.
   */
  findingsPrunedAt?: string;
}

export async function getResults(
  scans: ScanStore,
  tenantId: string,
  id: string,
  page: Page,
  now: Date,
): Promise<ResultsView> {
  const scan = await endedScan(scans, tenantId, id);
  const found = await scans.listFindings(tenantId, id, ALL_FINDINGS, page, now);
  const sentinel = runsAsChildScans(scan.scanType) ? await scans.sentinelRun(tenantId, id) : null;
  return {
    scanId: scan.id,
    status: scan.status,
    partial: scan.status !== 'completed',
    summary: { ...scan.findingsSummary },
    riskScore: scan.riskScore,
    findings: found.findings.map((finding) => toFindingView(withTriageInEffect(finding, now))),
    pagination: pagination(page.page, page.limit, found.total),
    ...(sentinel === null ? {} : { sentinel }),
    ...(scan.findingsPrunedAt === null
      ? {}
      : { findingsPrunedAt: scan.findingsPrunedAt.toISOString() }),
  };
}

export interface ResultsFile {
  readonly contentType: string;
  readonly filename: string;
  /** The file's text, a page of findings at a time (read from the store as it is consumed). */
  readonly body: AsyncIterable<string>;
}

/** Findings read per page of an export: a few hundred kilobytes of text at a time. */
export const EXPORT_PAGE_SIZE = 500;
// A page goes out in chunks of about 60 KB: below V8's regular object size (128 KB), so no chunk
// lands in its large-object space, and the socket gets steady writes instead of one per page.
const SARIF_RESULTS_PER_CHUNK = 50;
const CSV_ROWS_PER_CHUNK = 100;
const DEFECTDOJO_FINDINGS_PER_CHUNK = 100;

/** The formats `exportResults` writes: the whole result as one file. */
export type ExportFormat = 'sarif' | 'csv' | 'defectdojo';

/** `items` in consecutive parts of at most `size`. */
function* inParts<T>(items: readonly T[], size: number): Generator<readonly T[]> {
  for (let start = 0; start < items.length; start += size) {
    yield items.slice(start, start + size);
  }
}

/**
 * The whole result as a SARIF 2.1.0 log, a CSV file or a DefectDojo Generic Findings Import file,
 * streamed: the body reads the findings a page at a time as it is consumed, so memory holds one
 * page (and, for SARIF, the rules) whatever the number of findings. The bytes are those of
 * `renderCsv` / `renderSarif` / `renderDefectDojo` of every finding (CSV and DefectDojo in the
 * findings order).
 * SARIF needs its rules before its results: the store computes what they are made of (one source
 * a rule) before this returns, so a failure then is still an ordinary error answer.
 */
export async function exportResults(
  scans: ScanStore,
  tenantId: string,
  id: string,
  format: ExportFormat,
  toolVersion: string | null,
  now: Date,
): Promise<ResultsFile> {
  const scan = await endedScan(scans, tenantId, id);
  // Each page's findings with their issues' triage in effect now (the same objects unless an
  // accepted risk expired and was not stored as such yet).
  const pages = async function* (order: 'severity' | 'sarif') {
    for await (const page of scans.findingPages(tenantId, id, order, EXPORT_PAGE_SIZE)) {
      yield page.map((finding) => withTriageInEffect(finding, now));
    }
  };
  if (format === 'csv') {
    return {
      contentType: 'text/csv; charset=utf-8',
      filename: `rampart-scan-${scan.id}.csv`,
      body: (async function* () {
        yield csvHeaderLine();
        for await (const page of pages('severity')) {
          for (const part of inParts(page, CSV_ROWS_PER_CHUNK)) {
            yield part.map(csvRecordLine).join('');
          }
        }
      })(),
    };
  }
  if (format === 'defectdojo') {
    const writer = createDefectDojoWriter();
    return {
      contentType: 'application/json; charset=utf-8',
      filename: `rampart-scan-${scan.id}.defectdojo.json`,
      body: (async function* () {
        yield writer.head;
        for await (const page of pages('severity')) {
          for (const part of inParts(page, DEFECTDOJO_FINDINGS_PER_CHUNK)) {
            yield writer.findings(part);
          }
        }
        yield writer.end();
      })(),
    };
  }
  const collector = createSarifRuleCollector();
  collector.add(await scans.sarifRuleSources(tenantId, id));
  const writer = createSarifWriter(
    {
      scan: {
        id: scan.id,
        scanType: scan.scanType,
        target: scan.target,
        status: scan.status,
        createdAt: scan.createdAt.toISOString(),
        completedAt: scan.completedAt?.toISOString() ?? null,
      },
      toolName: scan.scanType,
      toolVersion,
    },
    collector.rules(),
  );
  return {
    contentType: 'application/sarif+json',
    filename: `rampart-scan-${scan.id}.sarif`,
    body: (async function* () {
      yield writer.head;
      for await (const page of pages('sarif')) {
        for (const part of inParts(page, SARIF_RESULTS_PER_CHUNK)) {
          yield writer.results(part);
        }
      }
      yield writer.end();
    })(),
  };
}

/**
 * One page of an ended scan's findings matching `filter` (severity, engine, triage in effect at
 * `now`), with the pagination of every match.
 */
export async function listFindings(
  scans: ScanStore,
  tenantId: string,
  id: string,
  filter: ScanFindingFilter,
  page: Page,
  now: Date,
): Promise<{ findings: FindingView[]; pagination: Pagination }> {
  await endedScan(scans, tenantId, id);
  const found = await scans.listFindings(tenantId, id, filter, page, now);
  return {
    findings: found.findings.map((finding) => toFindingView(withTriageInEffect(finding, now))),
    pagination: pagination(page.page, page.limit, found.total),
  };
}
