import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDataDir } from '../data-dir/private-data-dir.js';

/**
 * The HS256 secret when JWT_SECRET is unset: generated once into `<DATA_DIR>/jwt-secret` (mode
 * 0600) and read back on every later start, so tokens survive restarts and the CLI signs with it.
 * DATA_DIR must be private (private-data-dir.ts).
 */
export async function loadOrCreateJwtSecret(dataDir: string): Promise<string> {
  await ensurePrivateDataDir(dataDir);
  const file = join(dataDir, 'jwt-secret');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw error;
    }
  }
  const secret = randomBytes(48).toString('base64url');
  try {
    // 'wx' fails if another process created it first; then that one's secret wins.
    await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      return (await readFile(file, 'utf8')).trim();
    }
    throw error;
  }
}
