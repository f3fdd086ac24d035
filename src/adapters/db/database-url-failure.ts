/**
 * Why the database at DATABASE_URL could not be used at start-up, in one line that names the
 * setting, the address and the cause, never the password:
 * `DATABASE_URL postgres://rampart:***@db:5432/rampart is unreachable: connect ECONNREFUSED …`.
 */
import { errorText } from '../data-dir/data-dir-failure.js';
import { isDatabaseUnavailable } from './database-errors.js';

/** Query parameters that may carry a secret (`password`, `sslpassword`). */
const SECRET_PARAMETER = /pass|secret|token/i;

/**
 * DATABASE_URL for messages and logs: a password (in the user part or a query parameter) is shown
 * as `***`. A URL that does not parse is not shown at all.
 */
export function redactDatabaseUrl(databaseUrl: string): string {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return '(a URL that does not parse)';
  }
  if (url.password !== '') {
    url.password = '***';
  }
  for (const key of [...url.searchParams.keys()]) {
    if (SECRET_PARAMETER.test(key)) {
      url.searchParams.set(key, '***');
    }
  }
  return url.toString();
}

/** SQLSTATE classes and codes of a server that answered and said no to the connection. */
function refusedConnection(code: string): boolean {
  return (
    code.startsWith('28') || // invalid authorization: unknown role, wrong password, pg_hba
    code === '3D000' || // the database does not exist
    code === '53300' || // too many connections
    code === '57P03' // starting up or shutting down
  );
}

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Every form in which the password could appear in a driver's message. */
function passwordsIn(databaseUrl: string): string[] {
  try {
    const { password } = new URL(databaseUrl);
    return password === '' ? [] : [password, decodeURIComponent(password)];
  } catch {
    return [];
  }
}

/**
 * The one-line reason the first use of DATABASE_URL (connect, then migrate) failed with `error`:
 * unreachable (refused, reset, timed out, an unknown host), refused by the server (role, password,
 * database), or the migration itself failing.
 */
export function describeDatabaseUrlFailure(databaseUrl: string, error: unknown): string {
  const shown = `DATABASE_URL ${redactDatabaseUrl(databaseUrl)}`;
  let text = errorText(error);
  for (const password of passwordsIn(databaseUrl)) {
    text = text.split(password).join('***');
  }
  const code = sqlState(error);
  if (code !== undefined && refusedConnection(code)) {
    return `${shown} refused the connection: ${text}`;
  }
  const systemCode = (error as { code?: unknown } | null)?.code;
  if (
    (code === undefined && isDatabaseUnavailable(error)) ||
    systemCode === 'ENOTFOUND' ||
    code?.startsWith('08') === true
  ) {
    return `${shown} is unreachable: ${text}`;
  }
  return `the database at ${shown} could not be migrated: ${text}`;
}
