/**
 * `rampart admin tenants suspend|reinstate|quota|max-running-scans` and `rampart admin assets
 * verify|unverify`: the platform administration routes, for a profile with an admin dashboard
 * token (any other answers ADMIN_REQUIRED). Key suspension is under `rampart keys`.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { unwrap } from '../../client/index.js';
import { details, integer, runner } from '../runner.js';

/** A running-scans cap, or `default` (null: the service's TENANT_MAX_RUNNING_SCANS). */
export function capOrDefault(value: string): number | null {
  if (value === 'default') {
    return null;
  }
  try {
    return integer(value);
  } catch {
    throw new InvalidArgumentError('Not a whole number or "default".');
  }
}

export function registerAdmin(program: Command): void {
  const admin = program
    .command('admin')
    .description('platform administration (needs an admin dashboard token)');

  const tenants = admin.command('tenants').description("a tenant's status, quota and scan cap");
  for (const action of ['suspend', 'reinstate'] as const) {
    tenants
      .command(action)
      .description(
        action === 'suspend'
          ? 'suspend a tenant: its keys and tokens are refused, its running scans stop'
          : 'reinstate a suspended tenant',
      )
      .argument('<tenantId>')
      .action(
        runner(async (ctx, tenantId: string) => {
          const { data } = await unwrap(
            ctx.client().POST(`/api/v1/admin/tenants/{tenantId}/${action}`, {
              params: { path: { tenantId } },
            }),
          );
          return { data, lines: details(data.tenant) };
        }),
      );
  }
  tenants
    .command('quota')
    .description("set a tenant's monthly scan quota (0: no more scans)")
    .argument('<tenantId>')
    .argument('<scans>', 'scans per month', integer)
    .action(
      runner(async (ctx, tenantId: string, monthlyScanQuota: number) => {
        const { data } = await unwrap(
          ctx.client().PUT('/api/v1/admin/tenants/{tenantId}/quota', {
            params: { path: { tenantId } },
            body: { monthlyScanQuota },
          }),
        );
        return { data, lines: details(data.tenant) };
      }),
    );
  tenants
    .command('max-running-scans')
    .description("set a tenant's cap on running scans")
    .argument('<tenantId>')
    .argument('<cap>', 'scans at once, or "default" for the service default', capOrDefault)
    .action(
      runner(async (ctx, tenantId: string, maxRunningScans: number | null) => {
        const { data } = await unwrap(
          ctx.client().PUT('/api/v1/admin/tenants/{tenantId}/max-running-scans', {
            params: { path: { tenantId } },
            body: { maxRunningScans },
          }),
        );
        return { data, lines: details(data.tenant) };
      }),
    );

  const assets = admin.command('assets').description("an asset's verification, by hand");
  for (const action of ['verify', 'unverify'] as const) {
    assets
      .command(action)
      .description(
        action === 'verify'
          ? 'mark an asset of any tenant verified (method admin)'
          : 'mark an asset of any tenant unverified',
      )
      .argument('<assetId>')
      .action(
        runner(async (ctx, assetId: string) => {
          const { data } = await unwrap(
            ctx.client().POST(`/api/v1/admin/assets/{assetId}/${action}`, {
              params: { path: { assetId } },
            }),
          );
          return { data, lines: details(data.asset) };
        }),
      );
  }
}
