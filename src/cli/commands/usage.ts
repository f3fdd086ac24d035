/** `rampart usage`: this period's quota and scans. */
import type { Command } from 'commander';
import { unwrap } from '../../client/index.js';
import { details, runner } from '../runner.js';

export function registerUsage(program: Command): void {
  program
    .command('usage')
    .description("this period's quota and scan counts")
    .action(
      runner(async (ctx) => {
        const { data } = await unwrap(ctx.client().GET('/api/v1/usage'));
        return { data, lines: details(data) };
      }),
    );
}
