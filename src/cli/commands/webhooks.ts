/** `rampart webhooks list|create|delete|test`. */
import { type Command, Option } from 'commander';
import { type operations, unwrap } from '../../client/index.js';
import { collect, details, runner, table } from '../runner.js';

type CreateBody = operations['createWebhook']['requestBody']['content']['application/json'];
type WebhookEvent = NonNullable<CreateBody['events']>[number];
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

export function registerWebhooks(program: Command): void {
  const webhooks = program.command('webhooks').description('manage webhooks');
  webhooks
    .command('list')
    .description('list webhooks')
    .action(
      runner(async (ctx) => {
        const { data } = await unwrap(ctx.client().GET('/api/v1/webhooks'));
        return { data, lines: table(data.webhooks, ['id', 'name', 'url', 'events', 'active']) };
      }),
    );
  webhooks
    .command('create')
    .description('create a webhook; its signing secret is shown once')
    .requiredOption('--name <name>', 'webhook name')
    .requiredOption('--url <url>', 'where deliveries go')
    .option('--event <event>', 'e.g. scan.completed (repeatable; default: every event)', collect)
    .addOption(
      new Option('--min-severity <severity>', 'only scans with a finding at or above').choices(
        SEVERITIES,
      ),
    )
    .option('--only-new', 'only scans with new findings')
    .action(
      runner(
        async (
          ctx,
          opts: {
            name: string;
            url: string;
            event?: string[];
            minSeverity?: (typeof SEVERITIES)[number];
            onlyNew?: boolean;
          },
        ) => {
          const filters =
            opts.minSeverity !== undefined || opts.onlyNew === true
              ? {
                  ...(opts.minSeverity !== undefined ? { minSeverity: opts.minSeverity } : {}),
                  ...(opts.onlyNew === true ? { onlyNew: true } : {}),
                }
              : undefined;
          const body: CreateBody = {
            name: opts.name,
            url: opts.url,
            // Event names are checked by the service.
            ...(opts.event !== undefined ? { events: opts.event as WebhookEvent[] } : {}),
            ...(filters !== undefined ? { filters } : {}),
          };
          const { data } = await unwrap(ctx.client().POST('/api/v1/webhooks', { body }));
          return { data, lines: details(data) };
        },
      ),
    );
  webhooks
    .command('delete')
    .description('delete a webhook')
    .argument('<webhookId>')
    .action(
      runner(async (ctx, webhookId: string) => {
        const { data } = await unwrap(
          ctx.client().DELETE('/api/v1/webhooks/{webhookId}', { params: { path: { webhookId } } }),
        );
        return { data, lines: [`webhook ${data.id} deleted`] };
      }),
    );
  webhooks
    .command('test')
    .description('send a webhook.test delivery now')
    .argument('<webhookId>')
    .action(
      runner(async (ctx, webhookId: string) => {
        const { data } = await unwrap(
          ctx
            .client()
            .POST('/api/v1/webhooks/{webhookId}/test', { params: { path: { webhookId } } }),
        );
        return { data, lines: details(data) };
      }),
    );
}
