/** `rampart issues list|get|triage|triage-all`. */
import { type Command, Option } from 'commander';
import { type operations, unwrap } from '../../client/index.js';
import {
  collect,
  details,
  type PageOptions,
  pageLine,
  pageQuery,
  runner,
  table,
  withPageOptions,
} from '../runner.js';

type ListQuery = NonNullable<operations['listIssues']['parameters']['query']>;
const TRIAGES = ['none', 'false_positive', 'accepted_risk', 'out_of_scope'] as const;
type Triage = (typeof TRIAGES)[number];
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
const STATUSES = ['open', 'fixed', 'reopened'] as const;

/** The list's filters, which triage-all takes too. */
interface FilterOptions {
  readonly target?: string;
  readonly engine?: string;
  readonly severity?: (typeof SEVERITIES)[number];
  readonly status?: (typeof STATUSES)[number];
  readonly triage?: Triage;
  readonly since?: string;
}

function withFilterOptions(command: Command): Command {
  return command
    .option('--target <target>', 'only issues of this target')
    .option('--engine <engine>', "only issues whose latest finding is this engine's")
    .addOption(new Option('--severity <severity>', 'only this severity').choices(SEVERITIES))
    .addOption(new Option('--status <status>', 'only this status').choices(STATUSES))
    .addOption(new Option('--triage <triage>', 'only this triage in effect').choices(TRIAGES))
    .option('--since <time>', 'only issues last seen at or after (ISO 8601 with a zone)');
}

function filterOf(opts: FilterOptions) {
  return {
    ...(opts.target !== undefined ? { target: opts.target } : {}),
    // The engine name is checked by the service (INVALID_FIELD_VALUE).
    ...(opts.engine !== undefined ? { engine: opts.engine as ListQuery['engine'] } : {}),
    ...(opts.severity !== undefined ? { severity: opts.severity } : {}),
    ...(opts.status !== undefined ? { status: opts.status } : {}),
    ...(opts.triage !== undefined ? { triage: opts.triage } : {}),
    ...(opts.since !== undefined ? { since: opts.since } : {}),
  };
}

/** The triage a change sets: triage, and its reason and expiry. */
interface TriageOptions {
  readonly as: Triage;
  readonly reason?: string;
  readonly expiresAt?: string;
}

function withTriageOptions(command: Command): Command {
  return command
    .addOption(new Option('--as <triage>', 'the triage').choices(TRIAGES).makeOptionMandatory())
    .option('--reason <text>', 'why (required for accepted_risk)')
    .option('--expires-at <time>', 'ISO 8601 time the triage ends (accepted_risk only)');
}

function triageOf(opts: TriageOptions) {
  return {
    triage: opts.as,
    ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
    ...(opts.expiresAt !== undefined ? { expiresAt: opts.expiresAt } : {}),
  };
}

export function registerIssues(program: Command): void {
  const issues = program.command('issues').description('findings across scans, and their triage');
  withPageOptions(
    withFilterOptions(issues.command('list').description('list issues, most recently seen first')),
  ).action(
    runner(async (ctx, opts: FilterOptions & PageOptions) => {
      const query: ListQuery = { ...filterOf(opts), ...pageQuery(opts) };
      const { data } = await unwrap(ctx.client().GET('/api/v1/issues', { params: { query } }));
      return {
        data,
        lines: [
          ...table(data.issues, ['id', 'severity', 'status', 'triage', 'target', 'title']),
          pageLine(data.pagination, 'issues'),
        ],
      };
    }),
  );
  issues
    .command('get')
    .description('show an issue')
    .argument('<issueId>')
    .action(
      runner(async (ctx, issueId: string) => {
        const { data } = await unwrap(
          ctx.client().GET('/api/v1/issues/{issueId}', { params: { path: { issueId } } }),
        );
        return { data, lines: details(data.issue) };
      }),
    );
  withTriageOptions(
    issues.command('triage').description('set the triage of an issue').argument('<issueId>'),
  ).action(
    runner(async (ctx, issueId: string, opts: TriageOptions) => {
      const { data } = await unwrap(
        ctx.client().PATCH('/api/v1/issues/{issueId}', {
          params: { path: { issueId } },
          body: triageOf(opts),
        }),
      );
      return { data, lines: details(data.issue) };
    }),
  );
  // --triage filters by the triage in effect; --as is the one to set.
  withFilterOptions(
    withTriageOptions(
      issues
        .command('triage-all')
        .description(
          'set the same triage on every issue the filters match (at least one filter or --id)',
        )
        .option('--id <issueId>', 'only this issue (repeatable, up to 100)', collect),
    ),
  ).action(
    runner(async (ctx, opts: TriageOptions & FilterOptions & { id?: string[] }) => {
      const { data } = await unwrap(
        ctx.client().POST('/api/v1/issues/triage', {
          body: {
            filter: { ...(opts.id === undefined ? {} : { ids: opts.id }), ...filterOf(opts) },
            ...triageOf(opts),
          },
        }),
      );
      return { data, lines: [`${data.updated} issues triaged ${opts.as}`] };
    }),
  );
}
