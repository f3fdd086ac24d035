import { randomBytes } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeDataDirFailure, fileSystemErrorCode } from './data-dir-failure.js';
import { ensurePrivateDataDir } from './private-data-dir.js';

/** One secret the service generates into DATA_DIR when its setting is unset. */
export interface GeneratedSecret {
  /** The file's name inside DATA_DIR (`jwt-secret`, `secrets-key`). */
  readonly file: string;
  /** What it is, for messages (`the JWT secret`). */
  readonly what: string;
  /** A new secret, one line of text. */
  generate(): string;
}

/**
 * A secret generated once into `<DATA_DIR>/<file>` (mode 0600) and read back on every later start
 * (the JWT secret when JWT_SECRET is unset, the secrets key when SECRETS_KEY is). DATA_DIR must be
 * private (private-data-dir.ts). A failure names DATA_DIR and its cause in one line (`no space
 * left on DATA_DIR /x: …`).
 *
 * The file appears whole or not at all: the secret is written to a temporary file that is then
 * hard-linked into place. Written in place, a full disk left an empty file behind (the create
 * succeeds, the write fails), which the next start would have read as the secret.
 */
export async function loadOrCreateSecretFile(
  dataDir: string,
  secret: GeneratedSecret,
): Promise<string> {
  await ensurePrivateDataDir(dataDir);
  const file = join(dataDir, secret.file);
  // A file-system error is explained (read-only, full, permissions); our own pass unchanged.
  const failure = async (error: unknown, doing: string) =>
    fileSystemErrorCode(error) === undefined
      ? error
      : new Error(
          `${await describeDataDirFailure(dataDir, error, `DATA_DIR ${dataDir}`)}: cannot ${doing} ${secret.what} ${file}`,
          { cause: error },
        );
  const existing = await readSecret(file, secret.what).catch(async (error: unknown) => {
    throw await failure(error, 'read');
  });
  if (existing !== null) {
    return existing;
  }
  const generated = secret.generate();
  try {
    // link() fails with EEXIST if another process created it first; then that one's secret wins.
    return (await createWhole(file, `${generated}\n`))
      ? generated
      : await readExisting(file, secret.what);
  } catch (error) {
    throw await failure(error, 'write');
  }
}

/** The secret in `file`, or null when there is no file. */
async function readSecret(file: string, what: string): Promise<string | null> {
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
    throw new Error(`${what} file ${file} is empty: remove it to have a new one generated`);
  }
  return secret;
}

async function readExisting(file: string, what: string): Promise<string> {
  const secret = await readSecret(file, what);
  if (secret === null) {
    throw new Error(`${what} file ${file} vanished while it was being created`);
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
