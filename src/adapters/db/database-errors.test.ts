/**
 * The errors are built with the drivers' own classes, in the shapes pg 8.23 / pg-pool 3.14 and
 * PGlite 0.5.16 were seen to throw here (refused, reset, cut, frozen path, statement and read
 * timeouts, a missing relation); test/e2e/database-outage.test.ts meets the real ones.
 */
import { messages } from '@electric-sql/pglite';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isDatabaseError, isDatabaseUnavailable } from './database-errors.js';

function pgError(code: string, message: string): pg.DatabaseError {
  const error = new pg.DatabaseError(message, message.length, 'error');
  error.code = code;
  error.severity = 'ERROR';
  return error;
}

function pgliteError(code: string, message: string): Error {
  const error = new messages.DatabaseError(message, message.length, 'error');
  error.code = code;
  error.severity = 'ERROR';
  return error;
}

function systemError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, errno: -1, syscall: 'connect' });
}

const UNAVAILABLE: Array<[string, unknown]> = [
  ['a refused connection', systemError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
  ['a reset on connect', systemError('ECONNRESET', 'connect ECONNRESET 127.0.0.1:5432')],
  ['a reset mid-query', systemError('ECONNRESET', 'read ECONNRESET')],
  ['a cut connection', new Error('Connection terminated unexpectedly')],
  [
    'a pool connect past connectionTimeoutMillis (a silent path)',
    new Error('Connection terminated due to connection timeout', {
      cause: new Error('Connection terminated unexpectedly'),
    }),
  ],
  ["a lone client's connect past connectionTimeoutMillis", new Error('timeout expired')],
  [
    'a wait for a pooled client that timed out',
    new Error('timeout exceeded when trying to connect'),
  ],
  ['the client-side read timeout', new Error('Query read timeout')],
  [
    'a client used after its connection failed',
    new Error('Client has encountered a connection error and is not queryable'),
  ],
  [
    'a terminated backend (pg)',
    pgError('57P01', 'terminating connection due to administrator command'),
  ],
  ['a server starting up (pg)', pgError('57P03', 'the database system is starting up')],
  ['too many connections (pg)', pgError('53300', 'sorry, too many clients already')],
  ['statement_timeout (pg)', pgError('57014', 'canceling statement due to statement timeout')],
  ['a connection exception class 08 (pg)', pgError('08006', 'connection failure')],
  ['a terminated backend (PGlite)', pgliteError('57P01', 'terminating connection')],
  [
    'an AggregateError of both address families',
    new AggregateError([systemError('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432')], ''),
  ],
  [
    'a wrapped unavailability',
    new Error('claiming scans failed', { cause: systemError('ETIMEDOUT', 'connect ETIMEDOUT') }),
  ],
];

const REFUSALS: Array<[string, unknown]> = [
  ['a missing relation (pg)', pgError('42P01', 'relation "templates" does not exist')],
  ['a unique violation (pg)', pgError('23505', 'duplicate key value violates unique constraint')],
  ['a full disk (pg)', pgError('53100', 'could not extend file: No space left on device')],
  ['a missing relation (PGlite)', pgliteError('42P01', 'relation "nope" does not exist')],
  ['division by zero (PGlite)', pgliteError('22012', 'division by zero')],
  [
    'a rolled-back transaction (PGlite)',
    new (class extends messages.DatabaseError {
      constructor() {
        super('Transaction was rolled back instead of committed', 0, 'error');
        this.severity = 'ERROR';
        this.code = '25P02';
      }
    })(),
  ],
  ['a wrapped refusal', new Error('insert failed', { cause: pgError('23503', 'foreign key') })],
];

const NOT_DATABASE: Array<[string, unknown]> = [
  ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
  ['a Node error with a five-letter code', systemError('EPERM', 'operation not permitted')],
  ['a string', 'ECONNREFUSED'],
  ['null', null],
  ['an object with a code but no severity', { code: '42P01' }],
];

describe('isDatabaseUnavailable', () => {
  it.each(UNAVAILABLE)('is true for %s', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([...REFUSALS, ...NOT_DATABASE])('is false for %s', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('survives an error whose cause refers back to itself', () => {
    const error = new Error('loop') as Error & { cause?: unknown };
    error.cause = error;
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('isDatabaseError', () => {
  it.each([...UNAVAILABLE, ...REFUSALS])('is true for %s', (_label, error) => {
    expect(isDatabaseError(error)).toBe(true);
  });

  it.each(NOT_DATABASE)('is false for %s', (_label, error) => {
    expect(isDatabaseError(error)).toBe(false);
  });
});
