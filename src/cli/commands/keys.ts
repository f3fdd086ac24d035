/**
 * `rampart keys create|list|get|rotate|revoke|suspend|reinstate` (a dashboard token's profile: API
 * keys are managed with JWT; suspend and reinstate are admin routes and need an admin token).
 */
import type { Command } from 'commander';
import { type operations, unwrap } from '../../client/index.js';
import { collect, details, integer, runner, table } from '../runner.js';

type Scope = NonNullable<
  operations['createApiKey']['requestBody']['content']['application/json']['scopes']
>[number];

const KEY_COLUMNS = ['id', 'name', 'keyPrefix', 'status', 'scopes', 'expiresAt', 'lastUsedAt'];

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('manage API keys (needs a dashboard token)');
  keys
    .command('create')
    .description('create an API key; the raw key is shown once')
    .requiredOption('--name <name>', 'key name')
    .option('--description <text>', 'description')
    .option(
      '--scope <scope>',
      'a scope, e.g. scans:create (repeatable; default: the service default)',
      collect,
    )
    .action(
      runner(async (ctx, opts: { name: string; description?: string; scope?: string[] }) => {
        const body = {
          name: opts.name,
          ...(opts.description !== undefined ? { description: opts.description } : {}),
          // Scope names are checked by the service (INVALID_SCOPE).
          ...(opts.scope !== undefined ? { scopes: opts.scope as Scope[] } : {}),
        };
        const { data } = await unwrap(ctx.client().POST('/api/v1/api-keys', { body }));
        return {
          data,
          lines: [...details(data.apiKey), `rawKey: ${data.rawKey}`, '(shown once: store it now)'],
        };
      }),
    );
  keys
    .command('list')
    .description('list API keys')
    .action(
      runner(async (ctx) => {
        const { data } = await unwrap(ctx.client().GET('/api/v1/api-keys'));
        return { data, lines: table(data.apiKeys, KEY_COLUMNS) };
      }),
    );
  keys
    .command('get')
    .description('show an API key')
    .argument('<keyId>')
    .action(
      runner(async (ctx, keyId: string) => {
        const { data } = await unwrap(
          ctx.client().GET('/api/v1/api-keys/{keyId}', { params: { path: { keyId } } }),
        );
        return { data, lines: details(data.apiKey) };
      }),
    );
  keys
    .command('rotate')
    .description('replace a key; the old one keeps working for the grace period')
    .argument('<keyId>')
    .option('--grace-hours <hours>', 'grace period of the old key, in hours', integer)
    .action(
      runner(async (ctx, keyId: string, opts: { graceHours?: number }) => {
        const body = opts.graceHours !== undefined ? { gracePeriodHours: opts.graceHours } : {};
        const { data } = await unwrap(
          ctx.client().POST('/api/v1/api-keys/{keyId}/rotate', {
            params: { path: { keyId } },
            body,
          }),
        );
        return {
          data,
          lines: [
            ...details(data.apiKey),
            `rawKey: ${data.rawKey}`,
            `previous key ${data.previousKey.id} ${data.previousKey.status} until ${data.previousKey.expiresAt ?? '-'}`,
          ],
        };
      }),
    );
  keys
    .command('revoke')
    .description('revoke a key')
    .argument('<keyId>')
    .action(
      runner(async (ctx, keyId: string) => {
        const { data } = await unwrap(
          ctx
            .client()
            .DELETE('/api/v1/api-keys/{keyId}', { params: { path: { keyId } }, body: {} }),
        );
        return { data, lines: [`key ${data.apiKey.id} ${data.apiKey.status}`] };
      }),
    );
  // The admin routes, listed under keys where a person looks for them.
  for (const action of ['suspend', 'reinstate'] as const) {
    keys
      .command(action)
      .description(
        action === 'suspend'
          ? 'suspend a key of any tenant (needs an admin token)'
          : 'reinstate a suspended key (needs an admin token)',
      )
      .argument('<keyId>')
      .action(
        runner(async (ctx, keyId: string) => {
          const { data } = await unwrap(
            ctx.client().POST(`/api/v1/admin/api-keys/{keyId}/${action}`, {
              params: { path: { keyId } },
            }),
          );
          return { data, lines: [`key ${data.apiKey.id} ${data.apiKey.status}`] };
        }),
      );
  }
}
