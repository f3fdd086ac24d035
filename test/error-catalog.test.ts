/**
 * The error catalog, the specification's code table, decisions.md's added codes and the OpenAPI
 * document name the same codes with the same statuses.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, ERROR_CODES } from '../src/domain/errors.js';
import { createTestDatabase } from './support/database.js';
import { startApp } from './support/harness.js';
import { sharedPath } from './support/shared-dir.js';

const SPEC = sharedPath('spec', '000_00068004c9db5bf2.txt');
const DECISIONS = sharedPath('spec', 'decisions.md');
const README = new URL('../README.md', import.meta.url);

/** The README section that lists the codes Rampart adds beyond decisions.md (its extensions). */
function extensionSection(readme: string): string {
  const start = readme.indexOf('### Error codes Rampart adds');
  if (start === -1) {
    throw new Error('README has no section "Error codes Rampart adds"');
  }
  const next = readme.indexOf('\n#', start + 1);
  return readme.slice(start, next === -1 ? undefined : next);
}

/** Rows `| CODE | status | …` of markdown tables (codes may be written `CODE`, `A`, `B`). */
function codeRows(text: string): Map<string, number> {
  const rows = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^\|\s*([`A-Z_, ]+?)\s*\|\s*(\d{3})\s*\|/.exec(line);
    if (!match?.[1] || !match[2]) {
      continue;
    }
    for (const code of match[1].split(',')) {
      const name = code.replace(/`/g, '').trim();
      if (/^[A-Z][A-Z_]+$/.test(name)) {
        rows.set(name, Number(match[2]));
      }
    }
  }
  return rows;
}

describe('error catalog', () => {
  const spec = codeRows(readFileSync(SPEC, 'utf8'));
  const decisions = codeRows(readFileSync(DECISIONS, 'utf8'));
  const extensions = codeRows(extensionSection(readFileSync(README, 'utf8')));

  it('holds every code of the specification with its status', () => {
    expect(spec.size).toBeGreaterThan(30);
    for (const [code, status] of spec) {
      expect(ERROR_CATALOG, code).toHaveProperty(code);
      expect(ERROR_CATALOG[code as keyof typeof ERROR_CATALOG].status, code).toBe(status);
    }
  });

  it('holds every code decisions.md adds with its status', () => {
    expect(decisions.size).toBeGreaterThanOrEqual(10);
    for (const [code, status] of decisions) {
      expect(ERROR_CATALOG[code as keyof typeof ERROR_CATALOG]?.status, code).toBe(status);
    }
  });

  it("holds every code the README lists as Rampart's extension, with its status", () => {
    expect(extensions.get('TENANT_LIMIT_REACHED')).toBe(409);
    for (const [code, status] of extensions) {
      expect(spec.has(code) || decisions.has(code), `${code} is already in the contract`).toBe(
        false,
      );
      expect(ERROR_CATALOG[code as keyof typeof ERROR_CATALOG]?.status, code).toBe(status);
    }
  });

  it('holds no code that neither document nor the README extensions name', () => {
    for (const code of ERROR_CODES) {
      expect(spec.has(code) || decisions.has(code) || extensions.has(code), code).toBe(true);
    }
  });

  it('uses the exact messages the contract fixes', () => {
    expect(ERROR_CATALOG.INSUFFICIENT_SCOPE.message).toBe('Insufficient scope: requires <scope>');
    expect(ERROR_CATALOG.RATE_LIMIT_EXCEEDED.message).toBe(
      'Rate limit exceeded. Retry in <seconds> seconds.',
    );
    expect(ERROR_CATALOG.MISSING_REQUIRED_FIELD.message).toBe('Missing required field: <field>');
    expect(ERROR_CATALOG.INVALID_FIELD_TYPE.message).toBe('Field <field> must be of type <type>');
    expect(ERROR_CATALOG.INVALID_FIELD_VALUE.message).toBe(
      'Invalid value for field <field>: <reason>',
    );
    for (const code of [
      'SCAN_TYPE_NOT_ALLOWED',
      'INVALID_SCAN_TYPE',
      'INVALID_PRIORITY',
      'INVALID_WEBHOOK_EVENT',
    ] as const) {
      expect(ERROR_CATALOG[code].message, code).toContain('<value>');
    }
    expect(ERROR_CATALOG.TENANT_LIMIT_REACHED.message).toBe(
      'Tenant limit reached: at most <limit> <resource>',
    );
  });

  it('is the list of codes of the OpenAPI document', async () => {
    const database = await createTestDatabase();
    const app = await startApp(database.handle);
    try {
      const doc = (await app.request('/api/v1/openapi.json')).body;
      const envelope = doc.components.schemas.ErrorEnvelope;
      const codes = envelope.properties.code.enum as string[];
      expect([...codes].sort()).toEqual([...ERROR_CODES].sort());
    } finally {
      await app.close();
      await database.destroy();
    }
  });
});
