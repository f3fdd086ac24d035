/** `rampart webhooks list|get|create|update|delete|test|deliveries|redeliver|recover`. */
import { type Command, Option } from 'commander';
import { type operations, unwrap } from '../../client/index.js';
import { DELIVERY_LOG_EVENTS } from '../../domain/webhooks/webhook-events.js';
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

type CreateBody = operations['createWebhook']['requestBody']['content']['application/json'];
type PatchBody = operations['updateWebhook']['requestBody']['content']['application/json'];
type WebhookEvent = NonNullable<CreateBody['events']>[number];
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

const WEBHOOK_COLUMNS = ['id', 'name', 'url', 'events', 'isActive', 'isHealthy'];
const DELIVERY_COLUMNS = [
  'id',
  'event',
  'attempt',
  'success',
  'statusCode',
  'responseTime',
  'deliveredAt',
  'error',
];

interface DeliveriesOptions extends PageOptions {
  readonly failed?: boolean;
  readonly succeeded?: boolean;
  readonly event?: (typeof DELIVERY_LOG_EVENTS)[number];
  readonly delivery?: string;
}

/** The options create and update share: name, url, events and the scan.completed filters. */
interface WebhookOptions {
  readonly name?: string;
  readonly url?: string;
  readonly event?: string[];
  readonly minSeverity?: (typeof SEVERITIES)[number];
  /** --only-new (true) or --no-only-new (false); absent when neither is given. */
  readonly onlyNew?: boolean;
}

function withWebhookOptions(command: Command): Command {
  return command
    .option(
      '--event <event>',
      'a subscribed event (repeatable); create defaults to scan.completed and scan.failed',
      collect,
    )
    .addOption(
      new Option(
        '--min-severity <severity>',
        'filters: only scans with an untriaged finding at or above',
      ).choices(SEVERITIES),
    )
    .option('--only-new', 'filters: only scans that opened or reopened an issue (the default)')
    .option('--no-only-new', 'filters: any untriaged issue at or above --min-severity, new or not');
}

/** The body fields of the shared options (the filters object as a whole: the API replaces it). */
function webhookFields(opts: WebhookOptions) {
  const filters =
    opts.minSeverity !== undefined || opts.onlyNew !== undefined
      ? {
          ...(opts.minSeverity !== undefined ? { minSeverity: opts.minSeverity } : {}),
          ...(opts.onlyNew !== undefined ? { onlyNew: opts.onlyNew } : {}),
        }
      : undefined;
  return {
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    ...(opts.url !== undefined ? { url: opts.url } : {}),
    // Event names are checked by the service (INVALID_WEBHOOK_EVENT).
    ...(opts.event !== undefined ? { events: opts.event as WebhookEvent[] } : {}),
    ...(filters !== undefined ? { filters } : {}),
  };
}

export function registerWebhooks(program: Command): void {
  const webhooks = program.command('webhooks').description('manage webhooks');
  withPageOptions(webhooks.command('list').description('list webhooks')).action(
    runner(async (ctx, opts: PageOptions) => {
      const { data } = await unwrap(
        ctx.client().GET('/api/v1/webhooks', { params: { query: pageQuery(opts) } }),
      );
      return {
        data,
        lines: [...table(data.webhooks, WEBHOOK_COLUMNS), pageLine(data.pagination, 'webhooks')],
      };
    }),
  );
  webhooks
    .command('get')
    .description('show a webhook and its health')
    .argument('<webhookId>')
    .action(
      runner(async (ctx, webhookId: string) => {
        const { data } = await unwrap(
          ctx.client().GET('/api/v1/webhooks/{webhookId}', { params: { path: { webhookId } } }),
        );
        return { data, lines: details(data.webhook) };
      }),
    );
  withWebhookOptions(
    webhooks
      .command('create')
      .description('create a webhook; its signing secret is shown once')
      .requiredOption('--name <name>', 'webhook name')
      .requiredOption('--url <url>', 'where deliveries go'),
  ).action(
    runner(async (ctx, opts: WebhookOptions & { name: string; url: string }) => {
      const body: CreateBody = { name: opts.name, url: opts.url, ...webhookFields(opts) };
      const { data } = await unwrap(ctx.client().POST('/api/v1/webhooks', { body }));
      return { data, lines: details(data) };
    }),
  );
  withWebhookOptions(
    webhooks
      .command('update')
      .description('change a webhook (--active re-enables it and resets its failure count)')
      .argument('<webhookId>')
      .option('--name <name>', 'webhook name')
      .option('--url <url>', 'where deliveries go'),
  )
    .option('--active', 'enable it')
    .option('--no-active', 'disable it')
    .option('--no-filters', 'remove the filters: every subscribed event is sent')
    .action(
      runner(
        async (
          ctx,
          webhookId: string,
          opts: WebhookOptions & { active?: boolean; filters: boolean },
        ) => {
          const body: PatchBody = {
            ...webhookFields(opts),
            ...(opts.active !== undefined ? { isActive: opts.active } : {}),
            ...(opts.filters === false ? { filters: null } : {}),
          };
          const { data } = await unwrap(
            ctx.client().PATCH('/api/v1/webhooks/{webhookId}', {
              params: { path: { webhookId } },
              body,
            }),
          );
          return { data, lines: details(data.webhook) };
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
  withPageOptions(
    webhooks
      .command('deliveries')
      .description("a webhook's delivery log: one line per attempt, newest first")
      .argument('<webhookId>')
      .addOption(new Option('--failed', 'only failed attempts').conflicts('succeeded'))
      .option('--succeeded', 'only attempts that succeeded')
      .addOption(
        new Option('--event <event>', 'only attempts of this event').choices(DELIVERY_LOG_EVENTS),
      )
      .option('--delivery <deliveryId>', 'only the attempts of this delivery (del-<uuid>)'),
  ).action(
    runner(async (ctx, webhookId: string, opts: DeliveriesOptions) => {
      const { data } = await unwrap(
        ctx.client().GET('/api/v1/webhooks/{webhookId}/deliveries', {
          params: {
            path: { webhookId },
            query: {
              ...pageQuery(opts),
              ...(opts.failed ? { success: false } : {}),
              ...(opts.succeeded ? { success: true } : {}),
              ...(opts.event === undefined ? {} : { event: opts.event }),
              ...(opts.delivery === undefined ? {} : { deliveryId: opts.delivery }),
            },
          },
        }),
      );
      return {
        data,
        lines: [...table(data.deliveries, DELIVERY_COLUMNS), pageLine(data.pagination, 'attempts')],
      };
    }),
  );
  webhooks
    .command('redeliver')
    .description('send a delivery again, as a new delivery')
    .argument('<webhookId>')
    .argument('<deliveryId>', 'del-<uuid>, as the delivery log shows it')
    .action(
      runner(async (ctx, webhookId: string, deliveryId: string) => {
        const { data } = await unwrap(
          ctx.client().POST('/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
            params: { path: { webhookId, deliveryId } },
          }),
        );
        return { data, lines: details(data.delivery) };
      }),
    );
  webhooks
    .command('recover')
    .description('send again every failed delivery created since a time')
    .argument('<webhookId>')
    .requiredOption('--since <time>', 'ISO 8601 time with a zone: deliveries created at or after')
    .option('--until <time>', 'ISO 8601 time with a zone: and before (default: now)')
    .action(
      runner(async (ctx, webhookId: string, opts: { since: string; until?: string }) => {
        const body = {
          since: opts.since,
          ...(opts.until !== undefined ? { until: opts.until } : {}),
        };
        const { data } = await unwrap(
          ctx.client().POST('/api/v1/webhooks/{webhookId}/deliveries/recover', {
            params: { path: { webhookId } },
            body,
          }),
        );
        return {
          data,
          lines: [
            ...table(data.deliveries, ['id', 'event', 'status', 'redeliveryOf']),
            `${data.recovered} deliveries queued${data.hasMore ? ' (more match: run it again)' : ''}`,
          ],
        };
      }),
    );
}
