/**
 * Results of a scan (results:read): GET /api/v1/scans/:scanId/results as JSON (paged), SARIF 2.1.0
 * or CSV (the whole result as a file), and GET /api/v1/scans/:scanId/findings (paged, filtered).
 * Results exist once a scan has ended: completed scans give `partial: false`; cancelled and failed
 * scans give the findings collected so far with `partial: true`; queued and running scans answer
 * 409 RESULTS_NOT_READY.
 */
import { ApiError } from '../../domain/errors.js';
import { renderCsv } from '../../domain/findings/csv.js';
import type { Severity } from '../../domain/findings/finding.js';
import { renderSarif } from '../../domain/findings/sarif.js';
import type { ScanRecord } from '../../domain/scans/scan.js';
import { isTerminal } from '../../domain/scans/status-machine.js';
import { runsAsChildScans } from '../../engines/registry.js';
import type { Page } from '../ports/common.js';
import type { ScanStore } from '../ports/scans.js';
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
}

export async function getResults(
  scans: ScanStore,
  tenantId: string,
  id: string,
  page: Page,
): Promise<ResultsView> {
  const scan = await endedScan(scans, tenantId, id);
  const found = await scans.listFindings(tenantId, id, { severity: null }, page);
  const sentinel = runsAsChildScans(scan.scanType) ? await scans.sentinelRun(tenantId, id) : null;
  return {
    scanId: scan.id,
    status: scan.status,
    partial: scan.status !== 'completed',
    summary: { ...scan.findingsSummary },
    riskScore: scan.riskScore,
    findings: found.findings.map(toFindingView),
    pagination: pagination(page.page, page.limit, found.total),
    ...(sentinel === null ? {} : { sentinel }),
  };
}

export interface ResultsFile {
  readonly contentType: string;
  readonly filename: string;
  readonly body: string;
}

/** The whole result as a SARIF 2.1.0 log or a CSV file. */
export async function exportResults(
  scans: ScanStore,
  tenantId: string,
  id: string,
  format: 'sarif' | 'csv',
  toolVersion: string | null,
): Promise<ResultsFile> {
  const scan = await endedScan(scans, tenantId, id);
  const { findings } = await scans.listFindings(tenantId, id, { severity: null }, null);
  if (format === 'csv') {
    return {
      contentType: 'text/csv; charset=utf-8',
      filename: `rampart-scan-${scan.id}.csv`,
      body: renderCsv(findings),
    };
  }
  return {
    contentType: 'application/sarif+json',
    filename: `rampart-scan-${scan.id}.sarif`,
    body: renderSarif({
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
      findings,
    }),
  };
}

export async function listFindings(
  scans: ScanStore,
  tenantId: string,
  id: string,
  severity: Severity | undefined,
  page: Page,
): Promise<{ findings: FindingView[]; pagination: Pagination }> {
  await endedScan(scans, tenantId, id);
  const found = await scans.listFindings(tenantId, id, { severity: severity ?? null }, page);
  return {
    findings: found.findings.map(toFindingView),
    pagination: pagination(page.page, page.limit, found.total),
  };
}
