/**
 * Issues (issue 23): updated from a scan's findings in the transaction that stores its end, so no
 * finding is stored without its issue. The rules are domain/issues/issue.ts's, applied set-based:
 * a few statements per scan whatever its number of findings (bench/issues.ts).
 *
 * Keys. An issue is found through `issue_keys`: its own fingerprint and, for a finding of a
 * sentinel scan, each source's fingerprint (`findings.sources[].finding.fingerprint`). A finding
 * resolves to the issue of its own fingerprint, else of its first source (in the correlation's
 * order, the primary first) that has one; a finding that resolves to none creates an issue keyed
 * by its own fingerprint (for a sentinel finding, its primary source's), and every fingerprint it
 * carries then leads to that issue. So a port nmap and nuclei both report is one issue, and a later
 * scan of nmap alone on the same target finds it through nmap's fingerprint. A fingerprint that
 * already leads to an issue keeps leading there (issue_keys never moves a key).
 *
 * Concurrency. New issues are inserted with `on conflict do nothing` on (tenant, target,
 * fingerprint) and keys likewise, so two scans of one target ending at once make one issue per
 * fingerprint; the rows an update moves are locked in id order first, so two such ends never
 * deadlock over them.
 */
import { type Kysely, sql } from 'kysely';
import { SEVERITIES, type Severity } from '../../domain/findings/finding.js';
import type { ScanEndForIssues } from '../../domain/issues/issue.js';
import {
  addChanges,
  addCounts,
  NO_CHANGES,
  parseScanIssueChanges,
  type ScanIssueChanges,
} from '../../domain/issues/scan-changes.js';
import { EXPIRY_ACTOR, type TriageState } from '../../domain/issues/triage.js';
import type { IssueFilter, IssueRecord, IssueStore } from '../../use-cases/ports/issues.js';
import type { Database, IssueRow } from './database.js';
import type { Db } from './scan-rows.js';

/** A scan's end as issues see it. */
export interface ScanForIssues {
  readonly scanId: string;
  readonly tenantId: string;
  /** The scan's target as stored (a sentinel scan's own target, not its children's). */
  readonly target: string;
  readonly end: ScanEndForIssues;
  /** The engines that looked (enginesThatLooked): their issues not seen move to fixed. */
  readonly engines: readonly string[];
}

/** The finding columns an issue carries (a finding's shape without raw output and evidence). */
const FIELDS = [
  'engine',
  'rule_id',
  'title',
  'severity',
  'severity_rank',
  'tool_severity',
  'category',
  'host',
  'port',
  'protocol',
  'url',
  'cve',
  'cwe',
  'description',
  'remediation',
  'refs',
] as const;

/**
 * The CTEs that move to fixed the issues a completed scan's engines could have found but it did
 * not see, with their history rows. `source` names a relation of (scan_id, tenant_id, target,
 * engine) rows, one per engine that looked; the CTEs are named `issues_gone`, `issues_fixed` and
 * `issues_fixed_events`. Used by the locked finish below and by the batched fast finish
 * (finish-scan.ts), so a completed scan without findings fixes its issues in the same statement.
 */
export function fixMissedIssuesCtes(source: string): string {
  return `issues_gone as (
    select i.id, i.status, i.tenant_id, l.scan_id
    from ${source} l
    join issues i on i.tenant_id = l.tenant_id and i.target = l.target and i.engine = l.engine
    where i.status <> 'fixed' and i.last_scan_id <> l.scan_id
    order by i.id
    for update of i
  ),
  issues_fixed as (
    update issues set status_changed_at = now(), status = 'fixed'
    from issues_gone g where issues.id = g.id
    returning issues.id, issues.tenant_id, g.status as from_status, g.scan_id, issues.triage
  ),
  issues_fixed_events as (
    insert into issue_events (issue_id, tenant_id, kind, from_state, to_state, scan_id)
    select id, tenant_id, 'status', from_status, 'fixed', scan_id from issues_fixed
  )`;
}

/**
 * The upsert of a scan's issues, one statement: each fingerprint of each finding looked up once
 * in issue_keys (`fps`); a finding resolves to the issue of its first fingerprint that has one
 * (`resolved`); the others make new open issues (`created`, in fingerprint order, conflicts left
 * over); every fingerprint without a key gets one to its finding's issue (`keyed`); each issue
 * this scan has not updated yet takes its most severe finding's fields, fixed → reopened
 * (`locked` in id order, then `seen`); status moves go to the history; each finding is linked to
 * its issue with its baseline state (`linked`: baselineStateOf, against the issue as it stood
 * before this statement, which every CTE reads). Returns how many new findings were left over by
 * a conflict; the next pass links those, and leaves the findings already linked as they are.
 */
function upsertStatement(scan: ScanForIssues) {
  const { scanId, tenantId, target } = scan;
  const fields = sql.raw(FIELDS.join(', '));
  const fromFinding = sql.raw(FIELDS.map((field) => `f.${field}`).join(', '));
  return sql`
    with fps as (
      select f.id as finding_id, f.severity_rank, f.seq, x.fp, x.ord, k.issue_id
      from findings f
      cross join lateral (
        select f.fingerprint as fp, 0::bigint as ord
        union all
        select s.value -> 'finding' ->> 'fingerprint', s.ordinality
        from jsonb_array_elements(coalesce(f.sources, '[]'::jsonb)) with ordinality s
      ) x
      left join issue_keys k
        on k.tenant_id = ${tenantId} and k.target = ${target} and k.fingerprint = x.fp
      where f.scan_id = ${scanId} and x.fp is not null
    ),
    resolved as (
      select distinct on (finding_id) finding_id, severity_rank, seq, issue_id from fps
      where issue_id is not null
      order by finding_id, ord
    ),
    fresh as (
      select distinct on (f.fingerprint) f.* from findings f
      where f.scan_id = ${scanId}
        and not exists (select 1 from resolved r where r.finding_id = f.id)
      order by f.fingerprint, f.severity_rank, f.seq
    ),
    created as (
      insert into issues (id, tenant_id, target, fingerprint, ${fields}, first_seen_at,
        last_seen_at, first_scan_id, last_scan_id, last_finding_id, occurrences, status,
        status_changed_at)
      select gen_random_uuid(), ${tenantId}, ${target}, f.fingerprint, ${fromFinding}, now(),
        now(), ${scanId}, ${scanId}, f.id, 1, 'open', now()
      from fresh f order by f.fingerprint
      on conflict (tenant_id, target, fingerprint) do nothing
      returning id, last_finding_id, severity, fingerprint
    ),
    owner as (
      select finding_id, issue_id from resolved
      union all
      select last_finding_id, id from created
    ),
    keyed as (
      insert into issue_keys (tenant_id, target, fingerprint, issue_id)
      select distinct on (fps.fp) ${tenantId}::uuid, ${target}::text, fps.fp, o.issue_id
      from fps join owner o on o.finding_id = fps.finding_id
      where fps.issue_id is null
      order by fps.fp, fps.severity_rank, fps.seq
      on conflict do nothing
    ),
    linked as (
      insert into finding_issues (finding_id, issue_id, baseline_state)
      select r.finding_id, r.issue_id, case
          when i.status = 'fixed' then 'new'
          when f.severity = i.severity and f.title = i.title and f.category = i.category
            and f.cve <@ i.cve and i.cve <@ f.cve and f.cwe <@ i.cwe and i.cwe <@ f.cwe
            then 'unchanged'
          else 'updated' end
      from resolved r
      join findings f on f.id = r.finding_id
      join issues i on i.id = r.issue_id
      union all
      select f.id, c.id, 'new' from created c
      join findings f on f.scan_id = ${scanId} and f.fingerprint = c.fingerprint
      where not exists (select 1 from resolved r where r.finding_id = f.id)
      on conflict (finding_id) do nothing
    ),
    picked as (
      select distinct on (issue_id) issue_id, finding_id from resolved
      order by issue_id, severity_rank, seq
    ),
    locked as (
      select i.id, i.status from issues i join picked p on p.issue_id = i.id
      where i.last_scan_id <> ${scanId}
      order by i.id
      for update of i
    ),
    seen as (
      update issues i set (${fields}) = (${fromFinding}),
        last_seen_at = now(), last_scan_id = ${scanId}, last_finding_id = f.id,
        occurrences = i.occurrences + 1,
        status = case when l.status = 'fixed' then 'reopened' else l.status end,
        status_changed_at = case when l.status = 'fixed' then now() else i.status_changed_at end
      from locked l
      join picked p on p.issue_id = l.id
      join findings f on f.id = p.finding_id
      where i.id = l.id
      returning i.id, l.status as from_status, i.status as to_status, i.severity, i.triage
    ),
    recorded as (
      insert into issue_events (issue_id, tenant_id, kind, from_state, to_state, scan_id)
      select id, ${tenantId}::uuid, 'status', null, 'open', ${scanId}::uuid from created
      union all
      select id, ${tenantId}::uuid, 'status', from_status, to_status, ${scanId}::uuid from seen
      where from_status <> to_status
    )
    select (select count(*) from fresh)::int - (select count(*) from created)::int as left_over,
      (select ${bySeverity('true')} from created) as new,
      (select ${bySeverity("from_status = 'fixed' and triage = 'none'")} from seen) as reopened,
      (select ${bySeverity("triage = 'none'")} from seen) as seen_again`;
}

/**
 * `json_build_object('critical', count(*) filter (where severity = 'critical' and <condition>),
 * …)` over the rows of a CTE with `severity`: the counts ScanIssueChanges holds.
 */
function bySeverity(condition: string) {
  return sql.raw(
    `json_build_object(${SEVERITIES.map(
      (severity) =>
        `'${severity}', count(*) filter (where severity = '${severity}' and ${condition})`,
    ).join(', ')})`,
  );
}

interface UpsertRow {
  left_over: number;
  new: unknown;
  reopened: unknown;
  seen_again: unknown;
}

/** One pass's counts (a new issue is untriaged: every issue starts with triage none). */
function changesOf(row: UpsertRow | undefined): ScanIssueChanges {
  const counts = parseScanIssueChanges({
    new: row?.new,
    reopened: row?.reopened,
    seen: row?.seen_again,
  });
  return { ...counts, seen: addCounts(counts.new, counts.seen) };
}

/**
 * Updates the issues of a scan's target from its stored findings (call after insertFindings, in
 * the same transaction, with the scan's row locked): expired accepted risks of the tenant return
 * to none first (so what the scan shows is in effect), new fingerprints make open issues, known
 * ones update theirs (fixed → reopened, occurrences + 1, latest fields), and a completed scan
 * moves what its engines did not see to fixed. Idempotent for one scan: an issue already updated
 * by this scan is not counted again. Returns what it changed in untriaged issues, for the scan's
 * scan.completed event (webhook filters): counted by the same statements, so it is what this
 * end did.
 */
export async function updateIssuesForScan(trx: Db, scan: ScanForIssues): Promise<ScanIssueChanges> {
  const { scanId, tenantId, target } = scan;
  await expireTriages(trx, tenantId);
  // One statement resolves, creates and updates; a finding whose new issue another scan's end
  // inserted first (a conflict) is left over, and the statement runs again to find it through
  // that issue's key (it then counts this scan, so the fixed step below leaves it). Each pass
  // counts only the issues it moved, so the passes' counts add up.
  let changes = NO_CHANGES;
  for (let pass = 0; ; pass++) {
    const { rows } = await sql<UpsertRow>`${upsertStatement(scan)}`.execute(trx);
    changes = addChanges(changes, changesOf(rows[0]));
    if ((rows[0]?.left_over ?? 0) === 0) {
      break;
    }
    if (pass === 2) {
      throw new Error(`issues of scan ${scanId}: new fingerprints kept conflicting`);
    }
  }
  if (scan.end === 'completed' && scan.engines.length > 0) {
    const { rows } = await sql<{ fixed: number }>`
      with looked as (
        select ${scanId}::uuid as scan_id, ${tenantId}::uuid as tenant_id, ${target}::text as target,
          unnest(${sql.val([...scan.engines])}::text[]) as engine
      ),
      ${sql.raw(fixMissedIssuesCtes('looked'))}
      select count(*) filter (where triage = 'none')::int as fixed from issues_fixed`.execute(trx);
    changes = { ...changes, fixed: rows[0]?.fixed ?? 0 };
  }
  return changes;
}

/**
 * Returns the accepted risks whose expiry has passed to none, with a history row each (who:
 * EXPIRY_ACTOR): those of one tenant when a scan of it ends, all of them from housekeeping.
 * Returns how many expired.
 */
export async function expireTriages(db: Db, tenantId: string | null = null): Promise<number> {
  const { rows } = await sql<{ expired: number }>`
    with expired as (
      update issues set triage = 'none', triage_reason = null, triaged_by = ${EXPIRY_ACTOR},
        triaged_at = triage_expires_at, triage_expires_at = null
      where triage = 'accepted_risk' and triage_expires_at <= now()
        and (${tenantId}::uuid is null or tenant_id = ${tenantId}::uuid)
      returning id, tenant_id
    ),
    recorded as (
      insert into issue_events (issue_id, tenant_id, kind, from_state, to_state, actor, reason)
      select id, tenant_id, 'triage', 'accepted_risk', 'none', ${EXPIRY_ACTOR}, 'expired'
      from expired
    )
    select count(*)::int as expired from expired`.execute(db);
  return rows[0]?.expired ?? 0;
}

function toIssue(row: IssueRow): IssueRecord {
  return {
    id: row.id,
    target: row.target,
    fingerprint: row.fingerprint,
    engine: row.engine,
    ruleId: row.rule_id,
    title: row.title,
    severity: row.severity as Severity,
    toolSeverity: row.tool_severity,
    category: row.category,
    location: { host: row.host, port: row.port, protocol: row.protocol, url: row.url },
    identifiers: { cve: row.cve, cwe: row.cwe },
    description: row.description,
    remediation: row.remediation,
    references: row.refs,
    firstSeenAt: row.first_seen_at,
    lastSeenAt: row.last_seen_at,
    firstScanId: row.first_scan_id,
    lastScanId: row.last_scan_id,
    occurrences: row.occurrences,
    status: row.status,
    statusChangedAt: row.status_changed_at,
    triage: {
      state: row.triage,
      reason: row.triage_reason,
      by: row.triaged_by,
      at: row.triaged_at,
      expiresAt: row.triage_expires_at,
    },
  };
}

/**
 * The filter on the triage in effect at `now` (triageInEffect, in SQL): an accepted risk whose
 * expiry passed counts as none, before housekeeping has written it. A condition on the columns of
 * `issues`, unqualified: the issues list, a scan's findings list (through each finding's issue)
 * and the usage counts.
 */
export function triageInEffectIs(state: TriageState, now: Date) {
  const expired = sql<boolean>`(triage = 'accepted_risk' and triage_expires_at <= ${now})`;
  if (state === 'none') {
    return sql<boolean>`(triage = 'none' or ${expired})`;
  }
  if (state === 'accepted_risk') {
    return sql<boolean>`(triage = 'accepted_risk' and not ${expired} is true)`;
  }
  return sql<boolean>`(triage = ${state})`;
}

/** The tenant's issues a filter matches, as a condition on `issues` (the list and bulk triage). */
function matching(tenantId: string, filter: IssueFilter, now: Date) {
  const conditions = [sql<boolean>`tenant_id = ${tenantId}`];
  if (filter.ids !== null) {
    conditions.push(sql<boolean>`id = any(${[...filter.ids]}::uuid[])`);
  }
  if (filter.target !== null) {
    conditions.push(sql<boolean>`target = ${filter.target}`);
  }
  if (filter.engine !== null) {
    conditions.push(sql<boolean>`engine = ${filter.engine}`);
  }
  if (filter.severity !== null) {
    conditions.push(sql<boolean>`severity = ${filter.severity}`);
  }
  if (filter.status !== null) {
    conditions.push(sql<boolean>`status = ${filter.status}`);
  }
  if (filter.triage !== null) {
    conditions.push(triageInEffectIs(filter.triage, now));
  }
  if (filter.since !== null) {
    conditions.push(sql<boolean>`last_seen_at >= ${filter.since}`);
  }
  return sql<boolean>`(${sql.join(conditions, sql` and `)})`;
}

/**
 * The ids of the issues a scan's findings lead to (through issue_keys: each finding's own
 * fingerprint and its sources', as the upsert resolves them).
 */
function issuesOfScan(tenantId: string, target: string, scanId: string) {
  return sql`
    select distinct k.issue_id from findings f
    cross join lateral (
      select f.fingerprint as fp
      union all
      select s.value -> 'finding' ->> 'fingerprint'
      from jsonb_array_elements(coalesce(f.sources, '[]'::jsonb)) s
    ) x
    join issue_keys k on k.tenant_id = ${tenantId} and k.target = ${target} and k.fingerprint = x.fp
    where f.scan_id = ${scanId}`;
}

/** Issues as the API reads and triages them (GET, PATCH /api/v1/issues/…). */
export function createIssueStore(db: Kysely<Database>): IssueStore {
  return {
    async list(tenantId, filter, page, now) {
      const query = db.selectFrom('issues').where(matching(tenantId, filter, now));
      const [rows, count] = await Promise.all([
        query
          .selectAll()
          .orderBy('severity_rank')
          .orderBy('last_seen_at', 'desc')
          .orderBy('id')
          .limit(page.limit)
          .offset((page.page - 1) * page.limit)
          .execute(),
        query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirst(),
      ]);
      return { issues: rows.map(toIssue), total: Number(count?.n ?? 0) };
    },
    async get(tenantId, id) {
      const row = await db
        .selectFrom('issues')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row === undefined ? null : toIssue(row);
    },
    async setTriage(tenantId, id, decide) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('issues')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .forUpdate()
          .executeTakeFirst();
        if (row === undefined) {
          return null;
        }
        const change = decide(toIssue(row).triage);
        if (!change.ok) {
          return { problem: change.problem };
        }
        if (change.events.length === 0) {
          return { issue: toIssue(row) };
        }
        const updated = await trx
          .updateTable('issues')
          .set({
            triage: change.next.state,
            triage_reason: change.next.reason,
            triaged_by: change.next.by,
            triaged_at: change.next.at,
            triage_expires_at: change.next.expiresAt,
          })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('issue_events')
          .values(
            change.events.map((event) => ({
              issue_id: id,
              tenant_id: tenantId,
              at: event.at,
              kind: event.kind,
              from_state: event.from,
              to_state: event.to,
              actor: event.actor,
              reason: event.reason,
            })),
          )
          .execute();
        return { issue: toIssue(updated) };
      });
    },
    async triageMatching(tenantId, filter, next) {
      return db.transaction().execute(async (trx) => {
        // Expired accepted risks first (with their history rows), so the stored triage is the
        // one in effect and each move below starts from it.
        await expireTriages(trx, tenantId);
        const { rows } = await sql<{ updated: number }>`
          with matched as (
            select id, triage from issues
            where ${matching(tenantId, filter, next.at ?? new Date())}
              and not (triage = ${next.state}
                and triage_reason is not distinct from ${next.reason}
                and triage_expires_at is not distinct from ${next.expiresAt}::timestamptz)
            order by id
            for update
          ),
          changed as (
            update issues i set triage = ${next.state}, triage_reason = ${next.reason},
              triaged_by = ${next.by}, triaged_at = ${next.at}::timestamptz,
              triage_expires_at = ${next.expiresAt}::timestamptz
            from matched m where i.id = m.id
            returning i.id, m.triage as from_state
          ),
          recorded as (
            insert into issue_events (issue_id, tenant_id, at, kind, from_state, to_state, actor,
              reason)
            select id, ${tenantId}::uuid, ${next.at}::timestamptz, 'triage', from_state, ${next.state},
              ${next.by}, ${next.reason}
            from changed
          )
          select count(*)::int as updated from changed`.execute(trx);
        return rows[0]?.updated ?? 0;
      });
    },
    async previousCompletedScan(tenantId, target, scanType, before) {
      const row = await db
        .selectFrom('scans')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('target', '=', target)
        .where('scan_type', '=', scanType)
        .where('status', '=', 'completed')
        .where('parent_scan_id', 'is', null)
        .where('created_at', '<', before)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row?.id ?? null;
    },
    async diff(tenantId, scan, base) {
      const baseIssues =
        base === null
          ? sql`select null::uuid as issue_id where false`
          : issuesOfScan(tenantId, scan.target, base.id);
      const { rows } = await sql<IssueRow & { change: 'new' | 'fixed' | 'reopened' | 'unchanged' }>`
        with now_seen as (${issuesOfScan(tenantId, scan.target, scan.id)}),
        base_seen as (${baseIssues}),
        changes as (
          select n.issue_id, case when b.issue_id is not null then 'unchanged' else 'added' end as change
          from now_seen n left join base_seen b on b.issue_id = n.issue_id
          union all
          select b.issue_id, 'fixed' from base_seen b
          where not exists (select 1 from now_seen n where n.issue_id = b.issue_id)
        )
        select i.*, case
            when c.change <> 'added' then c.change
            when ${base?.completedAt ?? null}::timestamptz is not null
              and fs.completed_at <= ${base?.completedAt ?? null}::timestamptz then 'reopened'
            else 'new' end as change
        from changes c
        join issues i on i.id = c.issue_id and i.tenant_id = ${tenantId}
        left join scans fs on fs.id = i.first_scan_id
        order by i.severity_rank, i.id`.execute(db);
      const diff = { new: [], fixed: [], reopened: [], unchanged: [] } as Record<
        'new' | 'fixed' | 'reopened' | 'unchanged',
        IssueRecord[]
      >;
      for (const row of rows) {
        diff[row.change].push(toIssue(row));
      }
      return diff;
    },
    async history(tenantId, id) {
      const rows = await db
        .selectFrom('issue_events')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('issue_id', '=', id)
        .orderBy('id')
        .execute();
      return rows.map((row) => ({
        at: row.at,
        kind: row.kind,
        from: row.from_state,
        to: row.to_state,
        scanId: row.scan_id,
        actor: row.actor,
        reason: row.reason,
      }));
    },
  };
}
