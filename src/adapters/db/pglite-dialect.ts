/**
 * A Kysely dialect for PGlite (embedded PostgreSQL compiled to WebAssembly). PGlite is one
 * connection: concurrent Kysely callers must take turns, or statements of two transactions would
 * interleave on it. The driver hands the single connection out under a FIFO mutex, so a transaction
 * holds it from BEGIN to COMMIT. A failed statement inside a transaction poisons the session until
 * ROLLBACK; Kysely's transaction wrapper always rolls back on error, which keeps the connection usable.
 */
import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

class PgliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.pglite.query<R>(compiled.sql, [...compiled.parameters]);
    const affected = result.affectedRows;
    return {
      rows: result.rows,
      ...(affected !== undefined && compiled.query.kind !== 'SelectQueryNode'
        ? { numAffectedRows: BigInt(affected) }
        : {}),
    };
  }

  // biome-ignore lint/correctness/useYield: streaming is not supported; the method must exist.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite dialect does not support streaming');
  }
}

/**
 * One FIFO lock per PGlite instance, shared by every Kysely built over it (two apps in one
 * process, or several migrators), since the instance is one session whoever holds it.
 */
class ConnectionLock {
  private tail: Promise<void> = Promise.resolve();

  /** Resolves once the caller holds the lock; the returned function releases it. */
  async acquire(): Promise<() => void> {
    let release: () => void = () => {};
    const turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.tail;
    this.tail = previous.then(() => turn);
    await previous;
    return release;
  }
}

const locks = new WeakMap<PGlite, ConnectionLock>();

function lockOf(pglite: PGlite): ConnectionLock {
  let lock = locks.get(pglite);
  if (!lock) {
    lock = new ConnectionLock();
    locks.set(pglite, lock);
  }
  return lock;
}

/**
 * Runs `work` while holding the instance's connection lock, for PGlite calls made outside Kysely
 * (LISTEN): otherwise they could land inside another caller's open transaction.
 */
export async function withPgliteLock<T>(pglite: PGlite, work: () => Promise<T>): Promise<T> {
  const release = await lockOf(pglite).acquire();
  try {
    return await work();
  } finally {
    release();
  }
}

class PgliteDriver implements Driver {
  private readonly lock: ConnectionLock;
  private readonly releases: Array<() => void> = [];

  constructor(private readonly pglite: PGlite) {
    this.lock = lockOf(pglite);
  }

  async init(): Promise<void> {
    await this.pglite.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.lock.acquire();
    this.releases.push(release);
    return new PgliteConnection(this.pglite);
  }

  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await conn.executeQuery(CompiledQuery.raw(`begin${isolation}`));
  }

  async commitTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    await conn.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    // The lock admits one holder at a time, so the pending release is the holder's.
    this.releases.shift()?.();
  }

  async destroy(): Promise<void> {
    // The PGlite instance is owned by whoever created it (it may be shared by two apps in tests).
  }
}

/** Kysely dialect over an existing PGlite instance. */
export class PgliteDialect implements Dialect {
  constructor(private readonly pglite: PGlite) {}

  createAdapter() {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PgliteDriver(this.pglite);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }

  // biome-ignore lint/suspicious/noExplicitAny: Kysely's own Dialect signature uses Kysely<any>.
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
}
