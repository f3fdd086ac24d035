/** Findings of scans: written by the worker when a scan ends, read page by page by the API. */
import { randomUUID } from 'node:crypto';
import type { Finding, FingerprintedFinding, Severity } from '../../domain/findings/finding.js';
import { SEVERITIES } from '../../domain/findings/finding.js';
import type { FindingRow } from './database.js';
import { type Db, json } from './scan-rows.js';

export const FINDING_COLUMNS = [
  'id',
  'scan_id',
  'engine',
  'rule_id',
  'title',
  'severity',
  'tool_severity',
  'category',
  'host',
  'port',
  'protocol',
  'url',
  'cve',
  'cwe',
  'description',
  'evidence',
  'remediation',
  'refs',
  'fingerprint',
  'raw',
  'sources',
  'correlated_by',
  'risk',
  'created_at',
] as const;

export function toFinding(row: Pick<FindingRow, (typeof FINDING_COLUMNS)[number]>): Finding {
  return {
    id: row.id,
    scanId: row.scan_id,
    engine: row.engine,
    ruleId: row.rule_id,
    title: row.title,
    severity: row.severity as Severity,
    toolSeverity: row.tool_severity,
    category: row.category,
    location: { host: row.host, port: row.port, protocol: row.protocol, url: row.url },
    identifiers: { cve: row.cve, cwe: row.cwe },
    description: row.description,
    evidence: row.evidence,
    remediation: row.remediation,
    references: row.refs,
    fingerprint: row.fingerprint,
    raw: json<unknown>(row.raw),
    createdAt: row.created_at,
    correlation:
      row.sources === null
        ? null
        : {
            sources: json<unknown[]>(row.sources),
            correlatedBy: row.correlated_by ?? [],
            risk: json<unknown>(row.risk) ?? null,
          },
  };
}

/** What a sentinel finding stores besides the finding itself. */
export interface FindingCorrelationColumns {
  readonly sources: readonly unknown[];
  readonly correlatedBy: readonly string[];
  readonly risk: unknown;
}

// At most 26 columns a row: 1,000 rows stay far below PostgreSQL's 65,535 parameters per statement.
const INSERT_CHUNK = 1000;

/**
 * Inserts a scan's findings (in the caller's transaction). A finding's engine is the scan's,
 * unless the finding names its own (a sentinel finding names its primary source's engine).
 */
export async function insertFindings(
  trx: Db,
  scan: { readonly id: string; readonly tenantId: string; readonly scanType: string },
  findings: ReadonlyArray<
    FingerprintedFinding & {
      readonly engine?: string;
      readonly correlationColumns?: FindingCorrelationColumns;
    }
  >,
): Promise<void> {
  for (let start = 0; start < findings.length; start += INSERT_CHUNK) {
    const rows = findings.slice(start, start + INSERT_CHUNK).map((finding) => ({
      id: randomUUID(),
      scan_id: scan.id,
      tenant_id: scan.tenantId,
      engine: finding.engine ?? scan.scanType,
      rule_id: finding.ruleId,
      title: finding.title,
      severity: finding.severity,
      severity_rank: SEVERITIES.indexOf(finding.severity),
      tool_severity: finding.toolSeverity,
      category: finding.category,
      host: finding.location.host,
      port: finding.location.port,
      protocol: finding.location.protocol,
      url: finding.location.url,
      cve: [...finding.identifiers.cve],
      cwe: [...finding.identifiers.cwe],
      description: finding.description,
      evidence: finding.evidence,
      remediation: finding.remediation,
      refs: [...finding.references],
      fingerprint: finding.fingerprint,
      raw: finding.raw === undefined ? null : JSON.stringify(finding.raw),
      ...(finding.correlationColumns === undefined
        ? {}
        : {
            sources: JSON.stringify(finding.correlationColumns.sources),
            correlated_by: [...finding.correlationColumns.correlatedBy],
            risk:
              finding.correlationColumns.risk === null
                ? null
                : JSON.stringify(finding.correlationColumns.risk),
          }),
    }));
    await trx.insertInto('findings').values(rows).execute();
  }
}
