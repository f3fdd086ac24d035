import { randomBytes } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeDataDirFailure, fileSystemErrorCode } from '../data-dir/data-dir-failure.js';
import { ensurePrivateDataDir } from '../data-dir/private-data-dir.js';

/**
 * The HS256 secret when JWT_SECRET is unset: generated once into `<DATA_DIR>/jwt-secret` (mode
 * 0600) and read back on every later start, so tokens survive restarts and the CLI signs with it.
 * DATA_DIR must be private (private-data-dir.ts). A failure names DATA_DIR and its cause in one
 * line (`no space left on DATA_DIR /x: …`).
 *
 * The file appears whole or not at all: the secret is written to a temporary file that is then
 * hard-linked into place. Written in place, a full disk left an empty `jwt-secret` behind (the
 * create succeeds, the write fails), which the next start would have read as the secret.
 */
export async function loadOrCreateJwtSecret(dataDir: string): Promise<string> {
  await ensurePrivateDataDir(dataDir);
  const file = join(dataDir, 'jwt-secret');
  // A file-system error is explained (read-only, full, permissions); our own pass unchanged.
  const failure = async (error: unknown, doing: string) =>
    fileSystemErrorCode(error) === undefined
      ? error
      : new Error(
          `${await describeDataDirFailure(dataDir, error, `DATA_DIR ${dataDir}`)}: cannot ${doing} the JWT secret ${file}`,
          { cause: error },
        );
  const existing = await readSecret(file).catch(async (error: unknown) => {
    throw await failure(error, 'read');
  });
  if (existing !== null) {
    return existing;
  }
  const secret = randomBytes(48).toString('base64url');
  try {
    // link() fails with EEXIST if another process created it first; then that one's secret wins.
    return (await createWhole(file, `${secret}\n`)) ? secret : await readExisting(file);
  } catch (error) {
    throw await failure(error, 'write');
  }
}

/** The secret in `file`, or null when there is no file. */
async function readSecret(file: string): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return null;
    }
    throw error;
  }
  const secret = text.trim();
  if (secret === '') {
    throw new Error(`the JWT secret file ${file} is empty: remove it to have a new one generated`);
  }
  return secret;
}

async function readExisting(file: string): Promise<string> {
  const secret = await readSecret(file);
  if (secret === null) {
    throw new Error(`the JWT secret file ${file} vanished while it was being created`);
  }
  return secret;
}

/**
 * Creates `file` holding `content` (mode 0600) only if it does not exist. True when this call
 * created it, false when it existed; the temporary file is removed either way.
 */
async function createWhole(file: string, content: string): Promise<boolean> {
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, content, { mode: 0o600, flag: 'wx' });
    await link(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      return false;
    }
    throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}
