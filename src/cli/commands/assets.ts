/** `rampart assets list|get|create|update|verify|delete`. */
import { type Command, Option } from 'commander';
import { unwrap } from '../../client/index.js';
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

const KINDS = ['domain', 'host', 'ip', 'network', 'url', 'image'] as const;
const METHODS = ['dns', 'http'] as const;

export function registerAssets(program: Command): void {
  const assets = program.command('assets').description('manage assets and their verification');
  withPageOptions(
    assets
      .command('list')
      .description('list assets')
      .option('--tag <tag>', 'only assets with this tag'),
  ).action(
    runner(async (ctx, opts: PageOptions & { tag?: string }) => {
      const query = { ...(opts.tag !== undefined ? { tag: opts.tag } : {}), ...pageQuery(opts) };
      const { data } = await unwrap(ctx.client().GET('/api/v1/assets', { params: { query } }));
      const rows = data.assets.map((asset) => ({
        ...asset,
        verification: asset.verification.status,
      }));
      return {
        data,
        lines: [
          ...table(rows, ['id', 'name', 'kind', 'value', 'verification', 'tags']),
          pageLine(data.pagination, 'assets'),
        ],
      };
    }),
  );
  assets
    .command('get')
    .description('show an asset')
    .argument('<assetId>')
    .action(
      runner(async (ctx, assetId: string) => {
        const { data } = await unwrap(
          ctx.client().GET('/api/v1/assets/{assetId}', { params: { path: { assetId } } }),
        );
        return { data, lines: details(data.asset) };
      }),
    );
  assets
    .command('create')
    .description('register an asset')
    .requiredOption('--name <name>', 'asset name')
    .addOption(
      new Option('--kind <kind>', 'what the value is').choices(KINDS).makeOptionMandatory(),
    )
    .requiredOption('--value <value>', 'the domain, host, IP, network, URL or image')
    .option('--tag <tag>', 'tag (repeatable)', collect)
    .action(
      runner(
        async (
          ctx,
          opts: { name: string; kind: (typeof KINDS)[number]; value: string; tag?: string[] },
        ) => {
          const body = {
            name: opts.name,
            kind: opts.kind,
            value: opts.value,
            ...(opts.tag !== undefined ? { tags: opts.tag } : {}),
          };
          const { data } = await unwrap(ctx.client().POST('/api/v1/assets', { body }));
          return { data, lines: details(data.asset) };
        },
      ),
    );
  assets
    .command('update')
    .description('rename an asset or replace its tags (its value and kind stay)')
    .argument('<assetId>')
    .option('--name <name>', 'asset name')
    .option('--tag <tag>', 'tag (repeatable; replaces the tags)', collect)
    .action(
      runner(async (ctx, assetId: string, opts: { name?: string; tag?: string[] }) => {
        const body = {
          ...(opts.name !== undefined ? { name: opts.name } : {}),
          ...(opts.tag !== undefined ? { tags: opts.tag } : {}),
        };
        const { data } = await unwrap(
          ctx.client().PATCH('/api/v1/assets/{assetId}', { params: { path: { assetId } }, body }),
        );
        return { data, lines: details(data.asset) };
      }),
    );
  assets
    .command('verify')
    .description('check the ownership proof of an asset now')
    .argument('<assetId>')
    .addOption(new Option('--method <method>', 'the proof to check').choices(METHODS))
    .action(
      runner(async (ctx, assetId: string, opts: { method?: (typeof METHODS)[number] }) => {
        const { data } = await unwrap(
          ctx.client().POST('/api/v1/assets/{assetId}/verify', {
            params: { path: { assetId } },
            body: opts.method !== undefined ? { method: opts.method } : {},
          }),
        );
        return { data, lines: details(data.asset) };
      }),
    );
  assets
    .command('delete')
    .description('delete an asset')
    .argument('<assetId>')
    .action(
      runner(async (ctx, assetId: string) => {
        const { data } = await unwrap(
          ctx.client().DELETE('/api/v1/assets/{assetId}', { params: { path: { assetId } } }),
        );
        return { data, lines: [`asset ${assetId} deleted`] };
      }),
    );
}
