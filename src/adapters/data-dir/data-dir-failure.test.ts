import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeDataDirFailure, errorText, fileSystemErrorCode } from './data-dir-failure.js';

/** The shape PGlite's Emscripten file system throws: not an Error, no message (PGlite 0.5.16). */
function errnoError(errno: number): object {
  return { name: 'ErrnoError', errno };
}

function nodeError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

describe('fileSystemErrorCode', () => {
  it.each([
    [nodeError('EROFS', "read-only file system, mkdir '/x/pglite'"), 'EROFS'],
    [errnoError(51), 'ENOSPC'],
    [errnoError(69), 'EROFS'],
    [errnoError(2), 'EACCES'],
    [errnoError(999), 'errno 999'],
    [Object.assign(new Error('could not extend file'), { code: '53100' }), 'ENOSPC'],
  ])('reads %o as %s', (error, code) => {
    expect(fileSystemErrorCode(error)).toBe(code);
  });

  it.each([
    new Error('PGlite failed to initialize properly'),
    Object.assign(new Error('syntax error'), { code: '42601' }),
    'a string',
    null,
  ])('finds no file-system code in %o', (error) => {
    expect(fileSystemErrorCode(error)).toBeUndefined();
  });
});

describe('errorText', () => {
  it('names an ErrnoError, which has no message, by name and number', () => {
    expect(errorText(errnoError(51))).toBe('ErrnoError 51');
  });

  it('joins the errors of an AggregateError without a message', () => {
    const error = new AggregateError(
      [new Error('connect ECONNREFUSED ::1:1'), new Error('connect ECONNREFUSED 127.0.0.1:1')],
      '',
    );
    expect(errorText(error)).toBe('connect ECONNREFUSED ::1:1, connect ECONNREFUSED 127.0.0.1:1');
  });

  it('keeps a message on one line', () => {
    expect(errorText(new Error('first\n  second'))).toBe('first second');
  });
});

describe('describeDataDirFailure', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rampart-data-dir-failure-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    [errnoError(51), 'no space left on DATA_DIR /srv/data'],
    [nodeError('ENOSPC', 'no space left on device, write'), 'no space left on DATA_DIR /srv/data'],
    [nodeError('EROFS', 'read-only file system'), 'DATA_DIR /srv/data is read-only'],
    [errnoError(19), 'the disk quota of DATA_DIR /srv/data is used up'],
    [
      nodeError('ENOTDIR', 'not a directory'),
      'a part of the path of DATA_DIR /srv/data is not a directory',
    ],
  ])('names the cause of %o', async (error, message) => {
    expect(await describeDataDirFailure('/srv/data', error, 'unused')).toBe(message);
  });

  it('names the user a permission was denied to', async () => {
    expect(await describeDataDirFailure('/srv/data', errnoError(2), 'unused')).toBe(
      `DATA_DIR /srv/data is not writable (permission denied for uid ${process.getuid?.()})`,
    );
  });

  it('says what failed and what the error said when neither it nor the directory names a cause', async () => {
    const message = await describeDataDirFailure(
      dir,
      new Error('PGlite failed to initialize properly'),
      `the embedded database in DATA_DIR ${dir} could not be opened`,
    );
    expect(message).toBe(
      `the embedded database in DATA_DIR ${dir} could not be opened: PGlite failed to initialize properly`,
    );
  });
});
