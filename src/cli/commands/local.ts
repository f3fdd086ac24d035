/**
 * The commands that work on this machine's configuration, not over HTTP:
 * `rampart token --tenant <uuid> [--admin] [--ttl 1h] [--subject cli]` prints a dashboard JWT
 * signed with the configured secret (JWT_SECRET, or the one in DATA_DIR that the server generates
 * on first start; the CLI generates it the same way if the server never ran).
 * `rampart migrate` (`npm run migrate`) applies pending migrations to the configured database and
 * exits: the same step every process takes at start (openDatabase), for a deployment's migration
 * job that runs before new API and worker processes.
 *
 * The service modules load on use, so the HTTP commands do not pay for them.
 */
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { CliError } from '../runner.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Parses `90s`, `30m`, `1h`, `7d` or plain seconds into seconds; null when malformed. */
export function parseTtl(text: string): number | null {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match) {
    return null;
  }
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] ?? ''] ?? 1;
  const seconds = Number(match[1]) * unit;
  return seconds > 0 ? seconds : null;
}

/** Runs a local command: its failure (a ConfigError, a bad flag) is one line and exit 1. */
function local<Args extends unknown[]>(
  handler: (...args: Args) => Promise<void>,
): (...args: Args) => Promise<void> {
  return async (...args: Args) => {
    try {
      await handler(...args);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const known = error instanceof CliError || (error as Error).name === 'ConfigError';
      process.stderr.write(`${known ? '' : 'rampart: '}${message}\n`);
      process.exitCode = 1;
    }
  };
}

interface TokenOptions {
  readonly tenant?: string;
  readonly admin?: boolean;
  readonly ttl: string;
  readonly subject: string;
}

async function printToken(options: TokenOptions): Promise<void> {
  const tenantId = options.tenant ?? randomUUID();
  if (!UUID.test(tenantId)) {
    throw new CliError(`--tenant must be a UUID, got "${tenantId}"`);
  }
  const ttl = parseTtl(options.ttl);
  if (ttl === null) {
    throw new CliError(`--ttl must look like 90s, 30m, 1h or 7d, got "${options.ttl}"`);
  }
  const { loadConfig } = await import('../../config/load-config.js');
  const { resolveJwtSecret } = await import('../../main/compose.js');
  const { signToken } = await import('../../adapters/auth-tokens/jwt.js');
  const secret = await resolveJwtSecret(loadConfig(process.env));
  if (secret === null) {
    throw new CliError(
      'JWT_JWKS_URL is set: tokens come from your identity provider, not from this CLI',
    );
  }
  if (options.tenant === undefined) {
    process.stderr.write(`tenant: ${tenantId}\n`);
  }
  const token = await signToken(
    secret,
    { subject: options.subject, tenantId, admin: options.admin === true },
    ttl,
  );
  process.stdout.write(`${token}\n`);
}

/** Opens the configured database, which applies pending migrations, and closes it again. */
async function migrate(): Promise<void> {
  const { loadConfig } = await import('../../config/load-config.js');
  const { openDatabase } = await import('../../main/compose.js');
  const database = await openDatabase(loadConfig(process.env));
  await database.close();
  process.stderr.write(
    `migrated: ${database.kind === 'pglite' ? 'the embedded database' : 'DATABASE_URL'}\n`,
  );
}

export function registerLocal(program: Command): void {
  program
    .command('token')
    .description(
      'print a dashboard token signed with the configured secret (JWT_SECRET or DATA_DIR)',
    )
    .option('--tenant <uuid>', 'tenant id the token names; a new one is generated when omitted')
    .option('--admin', 'add role "admin" (platform administrator)')
    .option('--ttl <ttl>', 'lifetime: 90s, 30m, 1h, 7d', '1h')
    .option('--subject <userId>', 'the sub claim', 'cli')
    .action(local((options: TokenOptions) => printToken(options)));
  program
    .command('migrate')
    .description('apply pending migrations to DATABASE_URL (or the embedded database in DATA_DIR)')
    .action(local(() => migrate()));
}
