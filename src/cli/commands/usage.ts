/** `rampart usage [--days n]`: this period's quota and scans, or the scans per day. */
import type { Command } from 'commander';
import { unwrap } from '../../client/index.js';
import { details, integer, runner, table } from '../runner.js';

export function registerUsage(program: Command): void {
  program
    .command('usage')
    .description("this period's quota and scan counts")
    .option(
      '--days <n>',
      'instead: the scans per UTC day over the last n days, today included (1-366)',
      integer,
    )
    .action(
      runner(async (ctx, opts: { days?: number }) => {
        if (opts.days !== undefined) {
          const { data } = await unwrap(
            ctx.client().GET('/api/v1/usage/daily', { params: { query: { days: opts.days } } }),
          );
          const rows = data.days.map(({ date, total, byStatus }) => ({ date, total, ...byStatus }));
          return {
            data,
            lines: table(rows, [
              'date',
              'total',
              'completed',
              'failed',
              'cancelled',
              'running',
              'queued',
            ]),
          };
        }
        const { data } = await unwrap(ctx.client().GET('/api/v1/usage'));
        return { data, lines: details(data) };
      }),
    );
}
