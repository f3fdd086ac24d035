/** The PostgreSQL the benches run on, and a schema of its own for each measurement. */
import { randomUUID } from 'node:crypto';
import pg from 'pg';

export const DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** DATABASE_URL with `schema` as the search_path of every connection. */
export function schemaUrl(schema: string): string {
  const separator = DATABASE_URL.includes('?') ? '&' : '?';
  return `${DATABASE_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/** Runs `work` in a new schema of DATABASE_URL, dropped afterwards whatever `work` did. */
export async function withSchema<T>(work: (schema: string) => Promise<T>): Promise<T> {
  const schema = `bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  try {
    return await work(schema);
  } finally {
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}
