/**
 * The start-up pass over credentials at rest: every scan and template row whose options hold one
 * in clear (stored before encryption existed) or sealed with a previous key (SECRETS_KEY_PREVIOUS,
 * after a rotation) is written again sealed with SECRETS_KEY. Rows are read in pages by id, and
 * each write is conditional on the options being unchanged since they were read, so API processes
 * starting together, or a template PATCHed meanwhile, never lose a write. A value no configured
 * key opens is left as it is and counted; the log line names its key id, never a value.
 */
import { type Kysely, sql } from 'kysely';
import { SECRET_OPTION_KEYS } from '../../domain/secrets/secret-options.js';
import { type SecretBox, SecretUnreadableError } from '../../use-cases/ports/secrets.js';
import { resealedConfig, resealedOptions } from '../../use-cases/secrets/option-secrets.js';
import type { Database } from './database.js';

const PAGE = 500;

export interface ResealReport {
  /** Rows written again (clear text sealed, or sealed again with the current key). */
  readonly resealed: number;
  /** Rows left as they are because a value in them does not open. */
  readonly unreadable: number;
}

type Table = 'scans' | 'scan_templates';

interface Row {
  id: string;
  tenant_id: string;
  value: unknown;
}

/** A JSON column that may hold credentials: `options`, and `config` (secret-config.ts). */
type Column = 'options' | 'config';

/** The keys whose presence in a column's JSON means it may hold a credential. */
const MENTIONED: Readonly<Record<Column, readonly string[]>> = {
  options: [...SECRET_OPTION_KEYS],
  config: ['headers', 'cookies', 'auth'],
};

const RESEAL: Readonly<
  Record<
    Column,
    (box: SecretBox, tenantId: string, value: Record<string, unknown>) => Record<string, unknown>
  >
> = { options: resealedOptions, config: resealedConfig };

/** Rows whose column's JSON names a credential key at all (the rest need no look). */
function mentionsSecrets(column: Column) {
  return sql.join(
    MENTIONED[column].map((key) => sql`${sql.ref(column)}::text like ${`%"${key}":%`}`),
    sql` or `,
  );
}

async function resealTable(db: Kysely<Database>, box: SecretBox, table: Table, column: Column) {
  let resealed = 0;
  let unreadable = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = (
      await sql<Row>`
        select id, tenant_id, ${sql.ref(column)} as value from ${sql.table(table)}
        where id > ${after} and (${mentionsSecrets(column)})
        order by id limit ${PAGE}`.execute(db)
    ).rows;
    for (const row of rows) {
      const options = (typeof row.value === 'string' ? JSON.parse(row.value) : row.value) as Record<
        string,
        unknown
      >;
      let next: Record<string, unknown>;
      try {
        next = RESEAL[column](box, row.tenant_id, options);
      } catch (error) {
        if (error instanceof SecretUnreadableError) {
          unreadable += 1;
          continue;
        }
        throw error;
      }
      const before = JSON.stringify(options);
      const written = JSON.stringify(next);
      if (written === before) {
        continue;
      }
      const updated = await sql`
        update ${sql.table(table)} set ${sql.ref(column)} = ${written}::jsonb
        where id = ${row.id} and ${sql.ref(column)} = ${before}::jsonb`.execute(db);
      resealed += Number(updated.numAffectedRows ?? 0n);
    }
    const last = rows.at(-1);
    if (last === undefined || rows.length < PAGE) {
      return { resealed, unreadable };
    }
    after = last.id;
  }
}

/** Reseals the credentials of every scan and template (see the module comment). */
export async function resealStoredSecrets(
  db: Kysely<Database>,
  box: SecretBox,
): Promise<ResealReport> {
  const reports = [];
  for (const table of ['scans', 'scan_templates'] as const) {
    for (const column of ['options', 'config'] as const) {
      reports.push(await resealTable(db, box, table, column));
    }
  }
  return {
    resealed: reports.reduce((sum, report) => sum + report.resealed, 0),
    unreadable: reports.reduce((sum, report) => sum + report.unreadable, 0),
  };
}
