/** `rampart schedules list|get|create|update|pause|resume|delete`. */
import { type Command, Option } from 'commander';
import { type operations, type RampartClient, unwrap } from '../../client/index.js';
import {
  collect,
  details,
  integer,
  type PageOptions,
  pageLine,
  pageQuery,
  parseKeyValues,
  runner,
  table,
  withPageOptions,
} from '../runner.js';

type CreateBody = operations['createSchedule']['requestBody']['content']['application/json'];
type PatchBody = operations['updateSchedule']['requestBody']['content']['application/json'];
const MISSED_RUN_POLICIES = ['skip', 'run_once'] as const;

/** The options create and update share. */
interface ScheduleOptions {
  readonly name?: string;
  readonly description?: string;
  readonly cron?: string;
  readonly timeZone?: string;
  readonly interval?: number;
  readonly target?: string[];
  readonly asset?: string[];
  readonly assetTag?: string;
  readonly template?: string;
  readonly engine?: string;
  readonly option?: string[];
  readonly missedRuns?: (typeof MISSED_RUN_POLICIES)[number];
}

function withScheduleOptions(command: Command): Command {
  return command
    .option('--description <text>', 'description')
    .option('--cron <expression>', 'cron expression, e.g. "0 3 * * *"')
    .option('--time-zone <zone>', 'IANA time zone of the cron expression')
    .option('--interval <seconds>', 'run every N seconds', integer)
    .option('--target <target>', 'a target (repeatable)', collect)
    .option('--asset <assetId>', 'an asset (repeatable)', collect)
    .option('--asset-tag <tag>', 'every asset with this tag')
    .option('--template <templateId>', 'the scan template')
    .option('--engine <engine>', 'scan engine (scanType), without a template')
    .option('--option <key=value>', 'engine option: key=string or key:=json (repeatable)', collect)
    .addOption(
      new Option('--missed-runs <policy>', 'occurrences missed while no scheduler ran').choices(
        MISSED_RUN_POLICIES,
      ),
    );
}

/** The body fields of the shared options; the service checks how they combine. */
function scheduleFields(opts: ScheduleOptions) {
  const scan =
    opts.engine !== undefined || opts.option !== undefined
      ? {
          ...(opts.engine !== undefined ? { scanType: opts.engine } : {}),
          ...(opts.option !== undefined ? { options: parseKeyValues(opts.option) } : {}),
        }
      : undefined;
  return {
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    ...(opts.description !== undefined ? { description: opts.description } : {}),
    ...(opts.cron !== undefined ? { cron: opts.cron } : {}),
    ...(opts.timeZone !== undefined ? { timeZone: opts.timeZone } : {}),
    ...(opts.interval !== undefined ? { intervalSeconds: opts.interval } : {}),
    ...(opts.target !== undefined ? { targets: opts.target } : {}),
    ...(opts.asset !== undefined ? { assetIds: opts.asset } : {}),
    ...(opts.assetTag !== undefined ? { assetTag: opts.assetTag } : {}),
    ...(opts.template !== undefined ? { templateId: opts.template } : {}),
    ...(scan !== undefined ? { scan } : {}),
    ...(opts.missedRuns !== undefined ? { missedRunPolicy: opts.missedRuns } : {}),
  };
}

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
  withPageOptions(schedules.command('list').description('list schedules')).action(
    runner(async (ctx, opts: PageOptions) => {
      const { data } = await unwrap(
        ctx.client().GET('/api/v1/schedules', { params: { query: pageQuery(opts) } }),
      );
      return {
        data,
        lines: [
          ...table(data.schedules, ['id', 'name', 'cron', 'intervalSeconds', 'paused', 'targets']),
          pageLine(data.pagination, 'schedules'),
        ],
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
  withScheduleOptions(
    schedules
      .command('create')
      .description('create a schedule (a cron or an interval; targets, assets or an asset tag)')
      .requiredOption('--name <name>', 'schedule name'),
  )
    .option('--paused', 'create it paused')
    .action(
      runner(async (ctx, opts: ScheduleOptions & { name: string; paused?: boolean }) => {
        const body: CreateBody = {
          name: opts.name,
          ...scheduleFields(opts),
          ...(opts.paused === true ? { paused: true } : {}),
        };
        const { data } = await unwrap(ctx.client().POST('/api/v1/schedules', { body }));
        return { data, lines: details(data.schedule) };
      }),
    );
  withScheduleOptions(
    schedules
      .command('update')
      .description('change a schedule: fields not given are kept (pause and resume: their own)')
      .argument('<scheduleId>')
      .option('--name <name>', 'schedule name'),
  ).action(
    runner(async (ctx, scheduleId: string, opts: ScheduleOptions) => {
      const body: PatchBody = scheduleFields(opts);
      const { data } = await unwrap(
        ctx.client().PATCH('/api/v1/schedules/{scheduleId}', {
          params: { path: { scheduleId } },
          body,
        }),
      );
      return { data, lines: details(data.schedule) };
    }),
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
