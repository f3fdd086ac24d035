/** `rampart templates list|get|create|update|delete`. */
import { type Command, Option } from 'commander';
import { type operations, unwrap } from '../../client/index.js';
import {
  collect,
  details,
  type PageOptions,
  pageLine,
  pageQuery,
  parseKeyValues,
  runner,
  table,
  withPageOptions,
} from '../runner.js';

type CreateBody = operations['createTemplate']['requestBody']['content']['application/json'];
type PatchBody = operations['updateTemplate']['requestBody']['content']['application/json'];
const PRIORITIES = ['critical', 'high', 'normal', 'low'] as const;

/** The options create and update share. */
interface TemplateOptions {
  readonly name?: string;
  readonly engine?: string;
  readonly option?: string[];
  readonly priority?: string;
  readonly description?: string;
  readonly tag?: string[];
}

function withTemplateOptions(command: Command): Command {
  return command
    .option('--option <key=value>', 'engine option: key=string or key:=json (repeatable)', collect)
    .addOption(new Option('--priority <priority>', 'queue priority').choices(PRIORITIES))
    .option('--description <text>', 'description')
    .option('--tag <tag>', 'tag (repeatable)', collect);
}

/** The body of the given options; the service validates it against the engine's schema. */
function templateFields(opts: TemplateOptions): Record<string, unknown> {
  return {
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    ...(opts.engine !== undefined ? { scanType: opts.engine } : {}),
    ...(opts.option !== undefined ? { options: parseKeyValues(opts.option) } : {}),
    ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
    ...(opts.description !== undefined ? { description: opts.description } : {}),
    ...(opts.tag !== undefined ? { tags: opts.tag } : {}),
  };
}

export function registerTemplates(program: Command): void {
  const templates = program.command('templates').description('manage scan templates');
  withPageOptions(templates.command('list').description('list templates')).action(
    runner(async (ctx, opts: PageOptions) => {
      const { data } = await unwrap(
        ctx.client().GET('/api/v1/templates', { params: { query: pageQuery(opts) } }),
      );
      return {
        data,
        lines: [
          ...table(data.templates, ['id', 'name', 'scanType', 'priority']),
          pageLine(data.pagination, 'templates'),
        ],
      };
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
  withTemplateOptions(
    templates
      .command('create')
      .description('create a template')
      .requiredOption('--name <name>', 'template name')
      .requiredOption('--engine <engine>', 'scan engine (scanType)'),
  ).action(
    runner(async (ctx, opts: TemplateOptions & { name: string; engine: string }) => {
      // From the command line (the per-engine union cannot be built from strings without a cast).
      const body = templateFields(opts) as unknown as CreateBody;
      const { data } = await unwrap(ctx.client().POST('/api/v1/templates', { body }));
      return { data, lines: details(data.template) };
    }),
  );
  withTemplateOptions(
    templates
      .command('update')
      .description('change a template (--option replaces its options, --tag its tags)')
      .argument('<templateId>')
      .option('--name <name>', 'template name')
      .option('--engine <engine>', "scan engine (scanType; default: the template's)"),
  ).action(
    runner(async (ctx, templateId: string, opts: TemplateOptions) => {
      // As for create; openapi-fetch's body type of this union needs the `never` (as in scans.ts).
      const body = templateFields(opts) as unknown as PatchBody;
      const { data } = await unwrap(
        ctx.client().PATCH('/api/v1/templates/{templateId}', {
          params: { path: { templateId } },
          body: body as never,
        }),
      );
      return { data, lines: details(data.template) };
    }),
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
