/** Findings of scans: written by the worker when a scan ends, read page by page by the API. */
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Finding, FingerprintedFinding, Severity } from '../../domain/findings/finding.js';
import { SEVERITIES } from '../../domain/findings/finding.js';
import type { SarifRuleSource } from '../../domain/findings/sarif.js';
import type { Database, FindingRow } from './database.js';
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

/**
 * The two orders a whole result is read in: 'severity' is the findings list's and the CSV file's
 * (most severe first, then as stored; index `findings_by_scan`), 'sarif' is the SARIF file's
 * (`compareSarifResults`: severity, then rule id, fingerprint and id in code-point order; index
 * `findings_sarif_order`).
 */
export type FindingOrder = 'severity' | 'sarif';

// What an export reads of a finding: everything but `raw` and the correlation columns, which
// neither file carries (a finding's raw scanner output may be large).
const EXPORT_COLUMNS = FINDING_COLUMNS.filter(
  (column) => !['raw', 'sources', 'correlated_by', 'risk'].includes(column),
) as Exclude<(typeof FINDING_COLUMNS)[number], 'raw' | 'sources' | 'correlated_by' | 'risk'>[];

/** Where a page ends: the keyset of the next page's query. */
interface PageEnd {
  readonly severity_rank: number;
  readonly seq: string;
  readonly rule_id: string;
  readonly fingerprint: string;
  readonly id: string;
}

/** The rows after `last` in `order`, as a condition (true for the first page). */
function after(order: FindingOrder, last: PageEnd | null) {
  if (last === null) {
    return sql<boolean>`true`;
  }
  return order === 'severity'
    ? sql<boolean>`(severity_rank, seq) > (${last.severity_rank}, ${last.seq})`
    : sql<boolean>`(severity_rank, rule_id collate "C", fingerprint collate "C", id) > (${last.severity_rank}, ${last.rule_id}::text collate "C", ${last.fingerprint}::text collate "C", ${last.id}::uuid)`;
}

/** `order by` of `order`, matching its index. */
function orderOf(order: FindingOrder) {
  return order === 'severity'
    ? sql`severity_rank, seq`
    : sql`severity_rank, rule_id collate "C", fingerprint collate "C", id`;
}

/**
 * Pages of rows by keyset pagination: each page is one short indexed query that starts after the
 * last row of the page before, so memory holds one page whatever the size of the result, no
 * connection is held between pages, and no page costs more than the first.
 */
async function* keysetPages<Row extends PageEnd, T>(
  read: (
    condition: ReturnType<typeof after>,
    orderBy: ReturnType<typeof orderOf>,
  ) => Promise<Row[]>,
  order: FindingOrder,
  pageSize: number,
  map: (row: Row) => T,
): AsyncGenerator<T[]> {
  let last: PageEnd | null = null;
  for (;;) {
    const rows = await read(after(order, last), orderOf(order));
    if (rows.length === 0) {
      return;
    }
    yield rows.map(map);
    if (rows.length < pageSize) {
      return;
    }
    last = rows[rows.length - 1] ?? null;
  }
}

const PAGE_END_COLUMNS = ['severity_rank', 'seq', 'rule_id', 'fingerprint', 'id'] as const;

/** A scan's findings in `order`, `pageSize` at a time, without raw scanner output and correlation. */
export function readFindingPages(
  db: Kysely<Database>,
  tenantId: string,
  scanId: string,
  order: FindingOrder,
  pageSize: number,
): AsyncGenerator<Finding[]> {
  return keysetPages(
    (condition, orderBy) =>
      db
        .selectFrom('findings')
        .select([...EXPORT_COLUMNS, ...PAGE_END_COLUMNS])
        .select([
          sql<null>`null`.as('raw'),
          sql<null>`null`.as('sources'),
          sql<null>`null`.as('correlated_by'),
          sql<null>`null`.as('risk'),
        ])
        .where('scan_id', '=', scanId)
        .where('tenant_id', '=', tenantId)
        .where(condition)
        .orderBy(orderBy)
        .limit(pageSize)
        .execute(),
    order,
    pageSize,
    (row) => toFinding(row),
  );
}

/**
 * What the SARIF rules are made of, in SARIF result order, `pageSize` at a time: the rule id,
 * title, references and CWE/CVE ids of each finding, nothing else.
 */
export function readRuleSourcePages(
  db: Kysely<Database>,
  tenantId: string,
  scanId: string,
  pageSize: number,
): AsyncGenerator<SarifRuleSource[]> {
  return keysetPages(
    (condition, orderBy) =>
      db
        .selectFrom('findings')
        .select([...PAGE_END_COLUMNS, 'title', 'refs', 'cve', 'cwe'])
        .where('scan_id', '=', scanId)
        .where('tenant_id', '=', tenantId)
        .where(condition)
        .orderBy(orderBy)
        .limit(pageSize)
        .execute(),
    'sarif',
    pageSize,
    (row) => ({
      ruleId: row.rule_id,
      title: row.title,
      references: row.refs,
      identifiers: { cve: row.cve, cwe: row.cwe },
    }),
  );
}
