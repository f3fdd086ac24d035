/**
 * The Rampart CLI. `rampart token --tenant <uuid> [--admin] [--ttl 1h] [--subject cli]` prints a
 * dashboard JWT signed with the configured secret (JWT_SECRET, or the one in DATA_DIR that the
 * server generates on first start; the CLI generates it the same way if the server never ran).
 * `rampart migrate` (`npm run migrate`) applies pending migrations to the configured database and
 * exits: the same step every process takes at start (openDatabase), for a deployment's migration
 * job that runs before new API and worker processes.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { signToken } from '../adapters/auth-tokens/jwt.js';
import { ConfigError, loadConfig } from '../config/load-config.js';
import { openDatabase, resolveJwtSecret } from '../main/compose.js';

const USAGE = `Usage: rampart token [--tenant <uuid>] [--admin] [--ttl 1h] [--subject <user id>]
       rampart migrate

  --tenant   tenant id (UUID) the token names; a new one is generated when omitted
  --admin    add role "admin" (platform administrator)
  --ttl      lifetime: 90s, 30m, 1h, 7d (default 1h)
  --subject  the sub claim (default "cli")

  migrate    apply pending migrations to DATABASE_URL (or the embedded database in DATA_DIR)`;

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

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

async function tokenCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      tenant: { type: 'string' },
      admin: { type: 'boolean', default: false },
      ttl: { type: 'string', default: '1h' },
      subject: { type: 'string', default: 'cli' },
    },
    strict: true,
  });
  const tenantId = values.tenant ?? randomUUID();
  if (!UUID.test(tenantId)) {
    fail(`--tenant must be a UUID, got "${tenantId}"`);
  }
  const ttl = parseTtl(values.ttl);
  if (ttl === null) {
    fail(`--ttl must look like 90s, 30m, 1h or 7d, got "${values.ttl}"`);
  }
  const config = loadConfig(process.env);
  const secret = await resolveJwtSecret(config);
  if (secret === null) {
    fail('JWT_JWKS_URL is set: tokens come from your identity provider, not from this CLI');
  }
  if (values.tenant === undefined) {
    console.error(`tenant: ${tenantId}`);
  }
  console.log(
    await signToken(secret, { subject: values.subject, tenantId, admin: values.admin }, ttl),
  );
}

/** Opens the configured database, which applies pending migrations, and closes it again. */
async function migrateCommand(args: string[]): Promise<void> {
  if (args.length > 0) {
    fail(`rampart migrate takes no arguments, got "${args.join(' ')}"`);
  }
  const database = await openDatabase(loadConfig(process.env));
  await database.close();
  console.error(
    `migrated: ${database.kind === 'pglite' ? 'the embedded database' : 'DATABASE_URL'}`,
  );
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'token') {
    await tokenCommand(rest);
    return;
  }
  if (command === 'migrate') {
    await migrateCommand(rest);
    return;
  }
  fail(
    command === undefined || command === '--help'
      ? USAGE
      : `Unknown command "${command}"\n\n${USAGE}`,
  );
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof TypeError) {
    fail(error.message);
  }
  fail(`rampart: ${error instanceof Error ? error.message : String(error)}`);
});
