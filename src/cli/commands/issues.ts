/** `rampart issues list|get|triage`. */
import { type Command, Option } from 'commander';
import { unwrap } from '../../client/index.js';
import { details, runner, table } from '../runner.js';

const TRIAGES = ['none', 'false_positive', 'accepted_risk', 'out_of_scope'] as const;

export function registerIssues(program: Command): void {
  const issues = program.command('issues').description('findings across scans, and their triage');
  issues
    .command('list')
    .description('list issues')
    .option('--page <n>', 'page, from 1', Number)
    .option('--limit <n>', 'items per page', Number)
    .action(
      runner(async (ctx, opts: { page?: number; limit?: number }) => {
        const query = {
          ...(opts.page !== undefined ? { page: opts.page } : {}),
          ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
        };
        const { data } = await unwrap(ctx.client().GET('/api/v1/issues', { params: { query } }));
        return {
          data,
          lines: table(data.issues, ['id', 'severity', 'status', 'triage', 'target', 'title']),
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
  issues
    .command('triage')
    .description('set the triage of an issue')
    .argument('<issueId>')
    .addOption(new Option('--as <triage>', 'the triage').choices(TRIAGES).makeOptionMandatory())
    .option('--reason <text>', 'why')
    .option('--expires-at <time>', 'ISO 8601 time the triage ends')
    .action(
      runner(
        async (
          ctx,
          issueId: string,
          opts: { as: (typeof TRIAGES)[number]; reason?: string; expiresAt?: string },
        ) => {
          const body = {
            triage: opts.as,
            ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
            ...(opts.expiresAt !== undefined ? { expiresAt: opts.expiresAt } : {}),
          };
          const { data } = await unwrap(
            ctx.client().PATCH('/api/v1/issues/{issueId}', {
              params: { path: { issueId } },
              body,
            }),
          );
          return { data, lines: details(data.issue) };
        },
      ),
    );
}
