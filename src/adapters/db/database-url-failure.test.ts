import { describe, expect, it } from 'vitest';
import { describeDatabaseUrlFailure, redactDatabaseUrl } from './database-url-failure.js';

/** A server's refusal as `pg` reports it: a DatabaseError with a SQLSTATE code. */
function serverError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: 'FATAL' });
}

describe('redactDatabaseUrl', () => {
  it.each([
    ['postgres://bob:s3cret@db:5432/rampart', 'postgres://bob:***@db:5432/rampart'],
    ['postgres://bob:p%40ss@db/rampart', 'postgres://bob:***@db/rampart'],
    ['postgres://bob@db/rampart', 'postgres://bob@db/rampart'],
    [
      'postgres://db/rampart?password=s3cret&sslmode=require',
      'postgres://db/rampart?password=***&sslmode=require',
    ],
    ['postgresql://db/rampart?sslpassword=abc', 'postgresql://db/rampart?sslpassword=***'],
  ])('shows %s as %s', (url, shown) => {
    expect(redactDatabaseUrl(url)).toBe(shown);
  });
});

describe('describeDatabaseUrlFailure', () => {
  const url = 'postgres://bob:s3cret@127.0.0.1:1/rampart';

  it('calls a refused connect unreachable', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    expect(describeDatabaseUrlFailure(url, error)).toBe(
      'DATABASE_URL postgres://bob:***@127.0.0.1:1/rampart is unreachable: connect ECONNREFUSED 127.0.0.1:1',
    );
  });

  it('calls an unknown host unreachable', () => {
    const error = Object.assign(new Error('getaddrinfo ENOTFOUND db.invalid'), {
      code: 'ENOTFOUND',
    });
    expect(describeDatabaseUrlFailure('postgres://db.invalid/x', error)).toBe(
      'DATABASE_URL postgres://db.invalid/x is unreachable: getaddrinfo ENOTFOUND db.invalid',
    );
  });

  it.each([
    ['28P01', 'password authentication failed for user "bob"'],
    ['3D000', 'database "rampart" does not exist'],
    ['53300', 'sorry, too many clients already'],
  ])('says the server refused the connection (%s)', (code, message) => {
    expect(describeDatabaseUrlFailure(url, serverError(code, message))).toBe(
      `DATABASE_URL postgres://bob:***@127.0.0.1:1/rampart refused the connection: ${message}`,
    );
  });

  it('says the migration failed for other errors of the server', () => {
    const error = serverError('42501', 'permission denied for schema public');
    expect(describeDatabaseUrlFailure(url, error)).toBe(
      'the database at DATABASE_URL postgres://bob:***@127.0.0.1:1/rampart could not be migrated: permission denied for schema public',
    );
  });

  it('never repeats the password, even where a message quotes it', () => {
    const error = new Error('could not use s3cret here');
    expect(describeDatabaseUrlFailure(url, error)).not.toContain('s3cret');
  });
});
