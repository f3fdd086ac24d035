/** `rampart assets list|get|create|verify|delete`. */
import { type Command, Option } from 'commander';
import { unwrap } from '../../client/index.js';
import { collect, details, runner, table } from '../runner.js';

const KINDS = ['domain', 'host', 'ip', 'network', 'url', 'image'] as const;
const METHODS = ['dns', 'http'] as const;

export function registerAssets(program: Command): void {
  const assets = program.command('assets').description('manage assets and their verification');
  assets
    .command('list')
    .description('list assets')
    .action(
      runner(async (ctx) => {
        const { data } = await unwrap(ctx.client().GET('/api/v1/assets'));
        const rows = data.assets.map((asset) => ({
          ...asset,
          verification: asset.verification.status,
        }));
        return {
          data,
          lines: table(rows, ['id', 'name', 'kind', 'value', 'verification', 'tags']),
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
