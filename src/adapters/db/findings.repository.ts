/** Findings of scans: written by the worker when a scan ends, read page by page by the API. */
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type {
  Finding,
  FindingIssue,
  FingerprintedFinding,
  Severity,
} from '../../domain/findings/finding.js';
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

/**
 * What a read of findings adds from `finding_issues` and `issues` (a left join: null columns for a
 * finding that feeds no issue).
 */
export interface IssueLinkColumns {
  readonly issue_id: string | null;
  readonly baseline_state: FindingIssue['baselineState'] | null;
  readonly triage: FindingIssue['triage']['state'] | null;
  readonly triage_reason: string | null;
  readonly triaged_by: string | null;
  readonly triaged_at: Date | null;
  readonly triage_expires_at: Date | null;
}

/**
 * A finding's link and issue, joined to a page of findings aliased `f` (as `l`), one index probe
 * of each primary key per row. Lateral on purpose: as a plain join the planner hashed the whole
 * `finding_issues` table for each page (a sequential scan of every stored link, every page:
 * 100,000 findings read 500 at a time took 3.3 s instead of 1.1 s).
 */
export const ISSUE_LINK = sql<IssueLinkColumns>`(
  select fi.issue_id, fi.baseline_state, i.triage, i.triage_reason, i.triaged_by, i.triaged_at,
    i.triage_expires_at
  from finding_issues fi join issues i on i.id = fi.issue_id
  where fi.finding_id = f.id
)`.as('l');

/** The columns of ISSUE_LINK, as selected from it. */
export const ISSUE_LINK_COLUMNS = [
  'l.issue_id',
  'l.baseline_state',
  'l.triage',
  'l.triage_reason',
  'l.triaged_by',
  'l.triaged_at',
  'l.triage_expires_at',
] as const;

/**
 * A finding's issue from its link columns; null when it has none (or when they were not read: a
 * sentinel parent reading its children's findings).
 */
export function issueOf(row: Partial<IssueLinkColumns>): FindingIssue | null {
  const { issue_id: id, baseline_state: baselineState, triage: state } = row;
  if (id === null || id === undefined || !baselineState || !state) {
    return null;
  }
  return {
    id,
    baselineState,
    triage: {
      state,
      reason: row.triage_reason ?? null,
      by: row.triaged_by ?? null,
      at: row.triaged_at ?? null,
      expiresAt: row.triage_expires_at ?? null,
    },
  };
}

export function toFinding(
  row: Pick<FindingRow, (typeof FINDING_COLUMNS)[number]> & Partial<IssueLinkColumns>,
): Finding {
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
    issue: issueOf(row),
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

// What an export reads of a finding: what the files carry. Not `raw`, `evidence` and the
// correlation columns, which neither file carries (a finding's raw output and evidence may be
// large); the text arrays as JSON, which the driver parses with `JSON.parse` instead of its
// text-array parser (a few hundred bytes of garbage an array, 300,000 arrays in 100,000
// findings).
const EXPORT_COLUMNS = [
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
  'description',
  'remediation',
  'fingerprint',
  'created_at',
] as const;

type ExportRow = Pick<FindingRow, (typeof EXPORT_COLUMNS)[number]> &
  IssueLinkColumns & {
    readonly cve: unknown;
    readonly cwe: unknown;
    readonly refs: unknown;
  };

/**
 * A finding as an export reads it: no raw output, evidence or correlation. Not toFinding over a
 * spread row: measured (bench/sarif-export.ts), the extra object a row took the SARIF export's peak
 * RSS from 139 to 250 MB.
 */
function toExportFinding(row: ExportRow): Finding {
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
    identifiers: { cve: json<string[]>(row.cve), cwe: json<string[]>(row.cwe) },
    description: row.description,
    evidence: null,
    remediation: row.remediation,
    references: json<string[]>(row.refs),
    fingerprint: row.fingerprint,
    raw: null,
    createdAt: row.created_at,
    correlation: null,
    issue: issueOf(row),
  };
}

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

/** `order by` of `order`, matching its index; `table` qualifies the columns (`f.`). */
function orderOf(order: FindingOrder, table: '' | 'f.' = '') {
  const t = sql.raw(table);
  return order === 'severity'
    ? sql`${t}severity_rank, ${t}seq`
    : sql`${t}severity_rank, ${t}rule_id collate "C", ${t}fingerprint collate "C", ${t}id`;
}

/**
 * One page's query: the rows after a condition, in an order (`orderBy` on the findings table,
 * `outerOrderBy` on the page as `f` joined with more), at most a page of them.
 */
type ReadPage<Row> = (
  condition: ReturnType<typeof after>,
  orderBy: ReturnType<typeof orderOf>,
  outerOrderBy: ReturnType<typeof orderOf>,
) => Promise<Row[]>;

/**
 * Pages of rows by keyset pagination: each page is one short indexed query that starts after the
 * last row of the page before, so memory holds one page whatever the size of the result, no
 * connection is held between pages, and no page costs more than the first. Only the mapped page
 * outlives its query (the driver's rows are not kept while the page is being used).
 */
async function* keysetPages<Row extends PageEnd, T>(
  read: ReadPage<Row>,
  order: FindingOrder,
  pageSize: number,
  map: (row: Row) => T,
): AsyncGenerator<T[]> {
  let last: PageEnd | null = null;
  for (;;) {
    const page: KeysetPage<T> = await nextPage(read, order, last, map);
    if (page.items.length === 0) {
      return;
    }
    last = page.last;
    yield page.items;
    if (page.items.length < pageSize) {
      return;
    }
  }
}

interface KeysetPage<T> {
  readonly items: T[];
  /** The keyset of the page's last row (null for an empty page). */
  readonly last: PageEnd | null;
}

/** One page: its rows mapped, and where it ends (the rows themselves are not kept). */
async function nextPage<Row extends PageEnd, T>(
  read: ReadPage<Row>,
  order: FindingOrder,
  last: PageEnd | null,
  map: (row: Row) => T,
): Promise<KeysetPage<T>> {
  const rows = await read(after(order, last), orderOf(order), orderOf(order, 'f.'));
  const end = rows[rows.length - 1];
  return {
    items: rows.map(map),
    last:
      end === undefined
        ? null
        : {
            severity_rank: end.severity_rank,
            seq: end.seq,
            rule_id: end.rule_id,
            fingerprint: end.fingerprint,
            id: end.id,
          },
  };
}

const PAGE_END_COLUMNS = ['severity_rank', 'seq', 'rule_id', 'fingerprint', 'id'] as const;

/**
 * What an export's page selects from `findings`: each column once (the page is a subquery, where
 * a column named twice would make `f.id` ambiguous).
 */
const EXPORT_PAGE_COLUMNS = [...new Set([...EXPORT_COLUMNS, ...PAGE_END_COLUMNS])] as Array<
  (typeof EXPORT_COLUMNS)[number] | (typeof PAGE_END_COLUMNS)[number]
>;

/**
 * A scan's findings in `order`, `pageSize` at a time, without raw scanner output, evidence and
 * correlation, with their issues. Each page is taken from the findings first (the keyset's index)
 * and then joined with its links and issues by primary key, so the join costs a page's rows.
 */
export function readFindingPages(
  db: Kysely<Database>,
  tenantId: string,
  scanId: string,
  order: FindingOrder,
  pageSize: number,
): AsyncGenerator<Finding[]> {
  return keysetPages(
    (condition, orderBy, outerOrderBy) =>
      db
        .selectFrom((eb) =>
          eb
            .selectFrom('findings')
            .select(EXPORT_PAGE_COLUMNS)
            .select([
              sql<unknown>`to_json(cve)`.as('cve'),
              sql<unknown>`to_json(cwe)`.as('cwe'),
              sql<unknown>`to_json(refs)`.as('refs'),
            ])
            .where('scan_id', '=', scanId)
            .where('tenant_id', '=', tenantId)
            .where(condition)
            .orderBy(orderBy)
            .limit(pageSize)
            .as('f'),
        )
        .leftJoinLateral(ISSUE_LINK, (join) => join.onTrue())
        .selectAll('f')
        .select(ISSUE_LINK_COLUMNS)
        .orderBy(outerOrderBy)
        .execute(),
    order,
    pageSize,
    (row) => toExportFinding(row),
  );
}

/**
 * What the SARIF rules of a scan are made of, one source a rule, computed by the database so that
 * no finding crosses the wire for them: the title, description, remediation, severity, category,
 * engine and references of the rule's first finding in SARIF result order (its most severe, then
 * by fingerprint and id in code-point order), and every distinct CWE and CVE id of the rule's
 * findings. Given to a `createSarifRuleCollector`, these
 * give the rules that every finding in result order gives. The first finding of a rule is one
 * probe of `findings_sarif_order` at the rule's most severe rank.
 */
export async function readSarifRuleSources(
  db: Kysely<Database>,
  tenantId: string,
  scanId: string,
): Promise<SarifRuleSource[]> {
  const { rows } = await sql<{
    rule_id: string;
    title: string;
    severity: Severity;
    category: string;
    engine: string;
    description: string | null;
    remediation: string | null;
    refs: unknown;
    cwe: unknown;
    cve: unknown;
  }>`
    with rules as (
      select f.rule_id, min(f.severity_rank) as severity_rank,
        array_agg(distinct i.value) filter (where i.kind = 'cwe') as cwe,
        array_agg(distinct i.value) filter (where i.kind = 'cve') as cve
      from findings f
      left join lateral (
        select 'cwe' as kind, unnest(f.cwe) as value
        union all
        select 'cve', unnest(f.cve)
      ) i on true
      where f.scan_id = ${scanId} and f.tenant_id = ${tenantId}
      group by f.rule_id
    )
    select r.rule_id, first.title, first.severity, first.category, first.engine,
      first.description, first.remediation, to_json(first.refs) as refs,
      to_json(coalesce(r.cwe, '{}')) as cwe, to_json(coalesce(r.cve, '{}')) as cve
    from rules r
    cross join lateral (
      select title, severity, category, engine, description, remediation, refs from findings
      where scan_id = ${scanId} and tenant_id = ${tenantId}
        and severity_rank = r.severity_rank and rule_id collate "C" = r.rule_id collate "C"
      order by fingerprint collate "C", id
      limit 1
    ) first`.execute(db);
  return rows.map((row) => ({
    ruleId: row.rule_id,
    title: row.title,
    severity: row.severity,
    category: row.category,
    engine: row.engine,
    description: row.description,
    remediation: row.remediation,
    references: json<string[]>(row.refs),
    identifiers: { cve: json<string[]>(row.cve), cwe: json<string[]>(row.cwe) },
  }));
}
