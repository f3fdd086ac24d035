/** `rampart templates list|get|create|delete`. */
import { type Command, Option } from 'commander';
import { type operations, unwrap } from '../../client/index.js';
import { collect, details, parseKeyValues, runner, table } from '../runner.js';

type CreateBody = operations['createTemplate']['requestBody']['content']['application/json'];
const PRIORITIES = ['critical', 'high', 'normal', 'low'] as const;

export function registerTemplates(program: Command): void {
  const templates = program.command('templates').description('manage scan templates');
  templates
    .command('list')
    .description('list templates')
    .action(
      runner(async (ctx) => {
        const { data } = await unwrap(ctx.client().GET('/api/v1/templates'));
        return { data, lines: table(data.templates, ['id', 'name', 'scanType', 'priority']) };
      }),
    );
  templates
    .command('get')
    .description('show a template')
    .argument('<templateId>')
    .action(
      runner(async (ctx, templateId: string) => {
        const { data } = await unwrap(
          ctx.client().GET('/api/v1/templates/{templateId}', { params: { path: { templateId } } }),
        );
        return { data, lines: details(data.template) };
      }),
    );
  templates
    .command('create')
    .description('create a template')
    .requiredOption('--name <name>', 'template name')
    .requiredOption('--engine <engine>', 'scan engine (scanType)')
    .option('--option <key=value>', 'engine option: key=string or key:=json (repeatable)', collect)
    .addOption(new Option('--priority <priority>', 'queue priority').choices(PRIORITIES))
    .option('--description <text>', 'description')
    .option('--tag <tag>', 'tag (repeatable)', collect)
    .action(
      runner(
        async (
          ctx,
          opts: {
            name: string;
            engine: string;
            option?: string[];
            priority?: string;
            description?: string;
            tag?: string[];
          },
        ) => {
          const body = {
            name: opts.name,
            scanType: opts.engine,
            ...(opts.option !== undefined ? { options: parseKeyValues(opts.option) } : {}),
            ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
            ...(opts.description !== undefined ? { description: opts.description } : {}),
            ...(opts.tag !== undefined ? { tags: opts.tag } : {}),
          };
          // From the command line; the service validates it against the engine's schema.
          const { data } = await unwrap(
            ctx.client().POST('/api/v1/templates', { body: body as unknown as CreateBody }),
          );
          return { data, lines: details(data.template) };
        },
      ),
    );
  templates
    .command('delete')
    .description('delete a template')
    .argument('<templateId>')
    .action(
      runner(async (ctx, templateId: string) => {
        const { data } = await unwrap(
          ctx
            .client()
            .DELETE('/api/v1/templates/{templateId}', { params: { path: { templateId } } }),
        );
        return { data, lines: [`template ${templateId} deleted`] };
      }),
    );
}
