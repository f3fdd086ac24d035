/**
 * Whether a database can serve now, and why not (for /readyz): it answers `select 1` in time, and
 * the embedded one still has room to write in DATA_DIR.
 */
import { statfs } from 'node:fs/promises';

export type HealthCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export const HEALTHY: HealthCheck = Object.freeze({ ok: true });

/** The reason /readyz gives, and the 503 of a request, when the database does not answer. */
export const DATABASE_NOT_ANSWERING = 'the database is not answering';

/**
 * Free space DATA_DIR must keep for the embedded database to be ready: PostgreSQL (PGlite too)
 * writes its WAL in 16 MiB segments, so below one segment the next switch fails; 64 MiB leaves
 * room for that segment, a checkpoint and some table growth.
 */
export const DATA_DIR_MIN_FREE_BYTES = 64 * 1024 * 1024;

/** Healthy when `query` resolves within `timeoutMs`. */
export async function answersWithin(
  query: () => Promise<unknown>,
  timeoutMs: number,
): Promise<HealthCheck> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      query(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
    return HEALTHY;
  } catch {
    return { ok: false, reason: DATABASE_NOT_ANSWERING };
  } finally {
    clearTimeout(timer);
  }
}

/** Healthy while the file system of `dataDir` has `minFreeBytes` available. */
export async function dataDirHasRoom(
  dataDir: string,
  minFreeBytes = DATA_DIR_MIN_FREE_BYTES,
): Promise<HealthCheck> {
  try {
    const stats = await statfs(dataDir);
    return stats.bavail * stats.bsize >= minFreeBytes
      ? HEALTHY
      : { ok: false, reason: `no space left on DATA_DIR ${dataDir}` };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return {
      ok: false,
      reason: `DATA_DIR ${dataDir} cannot be read${typeof code === 'string' ? ` (${code})` : ''}`,
    };
  }
}
