/**
 * Caps on what one tenant may hold (API keys, webhooks, templates). The insert and the count run
 * in one transaction that first locks the tenant's row, so two creates of one tenant at once take
 * turns: the second counts the first's row and neither passes on a count the other is about to
 * change (a plain `insert … where (select count(*)) < cap` lets both through under READ
 * COMMITTED). The row is inserted before it is counted, so the insert's own refusals (a duplicate
 * name: a 400) come before the cap's 409; a count over the cap rolls the insert back.
 * `FOR NO KEY UPDATE` conflicts only with itself and with writers of the tenant's row; inserts
 * that reference the tenant (their foreign-key check takes KEY SHARE) and reads go on.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './database.js';

export const LIMIT_REACHED = 'limit-reached' as const;

class OverCap extends Error {}

export async function insertUnderTenantCap<T>(
  db: Kysely<Database>,
  tenantId: string,
  limit: number,
  insert: (trx: Transaction<Database>) => Promise<T>,
  count: (trx: Transaction<Database>) => Promise<number>,
): Promise<T | typeof LIMIT_REACHED> {
  try {
    return await db.transaction().execute(async (trx) => {
      await trx
        .selectFrom('tenants')
        .select('id')
        .where('id', '=', tenantId)
        .forNoKeyUpdate()
        .execute();
      const inserted = await insert(trx);
      if ((await count(trx)) > limit) {
        throw new OverCap();
      }
      return inserted;
    });
  } catch (error) {
    if (error instanceof OverCap) {
      return LIMIT_REACHED;
    }
    throw error;
  }
}
