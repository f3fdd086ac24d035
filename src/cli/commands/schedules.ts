/** `rampart schedules list|get|create|pause|resume|delete`. */
import type { Command } from 'commander';
import { type operations, type RampartClient, unwrap } from '../../client/index.js';
import { collect, details, parseKeyValues, runner, table } from '../runner.js';

type CreateBody = operations['createSchedule']['requestBody']['content']['application/json'];

async function setPaused(client: RampartClient, scheduleId: string, paused: boolean) {
  const { data } = await unwrap(
    client.PATCH('/api/v1/schedules/{scheduleId}', {
      params: { path: { scheduleId } },
      body: { paused },
    }),
  );
  return { data, lines: details(data.schedule) };
}

export function registerSchedules(program: Command): void {
  const schedules = program.command('schedules').description('manage scan schedules');
  schedules
    .command('list')
    .description('list schedules')
    .action(
      runner(async (ctx) => {
        const { data } = await unwrap(ctx.client().GET('/api/v1/schedules'));
        return {
          data,
          lines: table(data.schedules, [
            'id',
            'name',
            'cron',
            'intervalSeconds',
            'paused',
            'targets',
          ]),
        };
      }),
    );
  schedules
    .command('get')
    .description('show a schedule')
    .argument('<scheduleId>')
    .action(
      runner(async (ctx, scheduleId: string) => {
        const { data } = await unwrap(
          ctx.client().GET('/api/v1/schedules/{scheduleId}', { params: { path: { scheduleId } } }),
        );
        return { data, lines: details(data.schedule) };
      }),
    );
  schedules
    .command('create')
    .description('create a schedule (a cron or an interval; targets, assets or an asset tag)')
    .requiredOption('--name <name>', 'schedule name')
    .option('--cron <expression>', 'cron expression, e.g. "0 3 * * *"')
    .option('--time-zone <zone>', 'IANA time zone of the cron expression')
    .option('--interval <seconds>', 'run every N seconds', Number)
    .option('--target <target>', 'a target (repeatable)', collect)
    .option('--asset <assetId>', 'an asset (repeatable)', collect)
    .option('--asset-tag <tag>', 'every asset with this tag')
    .option('--template <templateId>', 'the scan template')
    .option('--engine <engine>', 'scan engine (scanType), without a template')
    .option('--option <key=value>', 'engine option: key=string or key:=json (repeatable)', collect)
    .option('--paused', 'create it paused')
    .action(
      runner(
        async (
          ctx,
          opts: {
            name: string;
            cron?: string;
            timeZone?: string;
            interval?: number;
            target?: string[];
            asset?: string[];
            assetTag?: string;
            template?: string;
            engine?: string;
            option?: string[];
            paused?: boolean;
          },
        ) => {
          const scan =
            opts.engine !== undefined || opts.option !== undefined
              ? {
                  ...(opts.engine !== undefined ? { scanType: opts.engine } : {}),
                  ...(opts.option !== undefined ? { options: parseKeyValues(opts.option) } : {}),
                }
              : undefined;
          const body: CreateBody = {
            name: opts.name,
            ...(opts.cron !== undefined ? { cron: opts.cron } : {}),
            ...(opts.timeZone !== undefined ? { timeZone: opts.timeZone } : {}),
            ...(opts.interval !== undefined ? { intervalSeconds: opts.interval } : {}),
            ...(opts.target !== undefined ? { targets: opts.target } : {}),
            ...(opts.asset !== undefined ? { assetIds: opts.asset } : {}),
            ...(opts.assetTag !== undefined ? { assetTag: opts.assetTag } : {}),
            ...(opts.template !== undefined ? { templateId: opts.template } : {}),
            ...(scan !== undefined ? { scan } : {}),
            ...(opts.paused === true ? { paused: true } : {}),
          };
          const { data } = await unwrap(ctx.client().POST('/api/v1/schedules', { body }));
          return { data, lines: details(data.schedule) };
        },
      ),
    );
  schedules
    .command('pause')
    .description('pause a schedule')
    .argument('<scheduleId>')
    .action(runner(async (ctx, scheduleId: string) => setPaused(ctx.client(), scheduleId, true)));
  schedules
    .command('resume')
    .description('resume a paused schedule')
    .argument('<scheduleId>')
    .action(runner(async (ctx, scheduleId: string) => setPaused(ctx.client(), scheduleId, false)));
  schedules
    .command('delete')
    .description('delete a schedule')
    .argument('<scheduleId>')
    .action(
      runner(async (ctx, scheduleId: string) => {
        const { data } = await unwrap(
          ctx
            .client()
            .DELETE('/api/v1/schedules/{scheduleId}', { params: { path: { scheduleId } } }),
        );
        return { data, lines: [`schedule ${scheduleId} deleted`] };
      }),
    );
}
