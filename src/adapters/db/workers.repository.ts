/**
 * The worker registry: each worker process registers the engines it can run and refreshes its
 * heartbeat; the API's 503 check and GET /api/v1/engines read which engines a live worker covers.
 */
import { type Kysely, sql } from 'kysely';
import type { RunnableEngine } from '../../use-cases/ports/scans.js';
import type { Database } from './database.js';

export interface WorkerRegistration {
  readonly id: string;
  readonly engines: readonly string[];
  /** Those of `engines` it runs in the scanner sandbox (default: none). */
  readonly sandboxedEngines?: readonly string[];
  readonly hostname: string;
  readonly pid: number;
}

export async function registerWorker(db: Kysely<Database>, worker: WorkerRegistration) {
  const engines = [...worker.engines];
  const sandboxed = [...(worker.sandboxedEngines ?? [])];
  await db
    .insertInto('workers')
    .values({
      id: worker.id,
      engines,
      sandboxed_engines: sandboxed,
      hostname: worker.hostname,
      pid: worker.pid,
    })
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet({ engines, sandboxed_engines: sandboxed, heartbeat_at: sql`now()` }),
    )
    .execute();
}

export async function touchWorker(db: Kysely<Database>, id: string): Promise<void> {
  await db.updateTable('workers').set({ heartbeat_at: sql`now()` }).where('id', '=', id).execute();
}

export async function unregisterWorker(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('workers').where('id', '=', id).execute();
}

/**
 * Engines covered by a worker whose heartbeat is younger than `staleAfterMs`; `sandboxed` when
 * every such worker runs the engine sandboxed (a scan may land on any of them).
 */
export async function runnableEngines(
  db: Kysely<Database>,
  staleAfterMs: number,
): Promise<Map<string, RunnableEngine>> {
  const rows = await db
    .selectFrom('workers')
    .select(['engines', 'sandboxed_engines'])
    .where('heartbeat_at', '>', sql<Date>`now() - ${staleAfterMs} * interval '1 millisecond'`)
    .execute();
  const runnable = new Map<string, RunnableEngine>();
  for (const row of rows) {
    for (const engine of row.engines) {
      const sandboxed = row.sandboxed_engines.includes(engine);
      runnable.set(engine, { sandboxed: sandboxed && (runnable.get(engine)?.sandboxed ?? true) });
    }
  }
  return runnable;
}

/** Forgets workers silent for longer than `olderThanMs` (they died without unregistering). */
export async function pruneWorkers(db: Kysely<Database>, olderThanMs: number): Promise<void> {
  await db
    .deleteFrom('workers')
    .where('heartbeat_at', '<', sql<Date>`now() - ${olderThanMs} * interval '1 millisecond'`)
    .execute();
}
