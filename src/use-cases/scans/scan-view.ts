/**
 * Scans and findings as the API shows them. The creation answer has exactly the specification's
 * fields; the detail record adds decisions.md's. Secret option values (credentials ZAP logs in
 * with) are never shown: they are replaced by `********` (domain/secrets/secret-options.ts).
 */
import type { Finding } from '../../domain/findings/finding.js';
import { durationMs, type ScanRecord } from '../../domain/scans/scan.js';
import { maskSecretConfig } from '../../domain/secrets/secret-config.js';
import { maskSecretOptions } from '../../domain/secrets/secret-options.js';
import type { SentinelRunView } from '../ports/scans.js';

export interface ScanCreatedView {
  id: string;
  scanType: string;
  name: string;
  target: string;
  status: string;
  priority: string;
  progress: number;
  tags: string[];
  createdAt: string;
  callbackSecret?: string;
}

export function toScanCreatedView(
  scan: ScanRecord,
  callbackSecret: string | null,
): ScanCreatedView {
  return {
    id: scan.id,
    scanType: scan.scanType,
    name: scan.name,
    target: scan.target,
    status: scan.status,
    priority: scan.priority,
    progress: scan.progress,
    tags: [...scan.tags],
    createdAt: scan.createdAt.toISOString(),
    ...(callbackSecret === null ? {} : { callbackSecret }),
  };
}

/** The sentinel part of a scan as the API shows it (detail and results), as the store reads it. */
export type SentinelView = SentinelRunView;

/** The detail record; a sentinel scan's (GET /api/v1/scans/:scanId) adds its `sentinel` part. */
export function toScanDetailView(scan: ScanRecord, sentinel: SentinelRunView | null = null) {
  return {
    ...toScanCreatedView(scan, null),
    targetType: scan.targetType,
    options: maskSecretOptions({ ...scan.options }),
    config: maskSecretConfig({ ...scan.config }),
    timeout: scan.timeoutSeconds,
    assetId: scan.assetId,
    callbackUrl: scan.callbackUrl,
    templateId: scan.templateId,
    parentScanId: scan.parentScanId,
    resultCount: scan.resultCount,
    findingsSummary: { ...scan.findingsSummary },
    riskScore: scan.riskScore,
    ...(scan.status === 'failed' && scan.error !== null ? { error: { ...scan.error } } : {}),
    startedAt: scan.startedAt?.toISOString() ?? null,
    completedAt: scan.completedAt?.toISOString() ?? null,
    durationMs: scan.startedAt === null || scan.completedAt === null ? null : durationMs(scan),
    ...(sentinel === null ? {} : { sentinel }),
  };
}

export type ScanDetailView = ReturnType<typeof toScanDetailView>;

/**
 * A finding as the API shows it. Its issue's triage is shown as given: read it through
 * `withTriageInEffect` first (the use cases do).
 */
export function toFindingView(finding: Finding) {
  return {
    id: finding.id,
    scanId: finding.scanId,
    engine: finding.engine,
    ruleId: finding.ruleId,
    title: finding.title,
    severity: finding.severity,
    toolSeverity: finding.toolSeverity,
    category: finding.category,
    location: { ...finding.location },
    identifiers: { cve: [...finding.identifiers.cve], cwe: [...finding.identifiers.cwe] },
    description: finding.description,
    evidence: finding.evidence,
    remediation: finding.remediation,
    references: [...finding.references],
    fingerprint: finding.fingerprint,
    raw: finding.raw,
    createdAt: finding.createdAt.toISOString(),
    issueId: finding.issue?.id ?? null,
    triage: finding.issue?.triage.state ?? null,
    baselineState: finding.issue?.baselineState ?? null,
    ...(finding.correlation === null
      ? {}
      : {
          sources: finding.correlation.sources,
          correlatedBy: [...finding.correlation.correlatedBy],
          risk: finding.correlation.risk,
        }),
  };
}

export type FindingView = ReturnType<typeof toFindingView>;

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export function pagination(page: number, limit: number, total: number): Pagination {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}
