/**
 * SARIF, CSV and DefectDojo exports are streamed from the database a page at a time (keyset
 * pagination) and are byte for byte what rendering every finding at once gives, whatever the
 * number of pages.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertFindings } from '../../src/adapters/db/findings.repository.js';
import { renderCsv } from '../../src/domain/findings/csv.js';
import { renderDefectDojo } from '../../src/domain/findings/defectdojo.js';
import { SEVERITIES } from '../../src/domain/findings/finding.js';
import { normalizeUrl } from '../../src/domain/findings/fingerprint.js';
import { renderSarif } from '../../src/domain/findings/sarif.js';
import { EXPORT_PAGE_SIZE } from '../../src/use-cases/scans/scan-results.js';
import { bearer, createKey, tokenFor, useTestApp } from '../support/harness.js';

const ctx = useTestApp();

let tenantId: string;
let token: string;

// Rule ids whose code-point order and UTF-16 order differ (U+FFFD vs U+1F600), plus plain ones.
const RULES = ['rule-a', 'rule-B', 'rule-\uFFFD', 'rule-\u{1F600}', 'ünïcode', '=formula', 'r,1'];

async function scanWithFindings(count: number, status = 'completed'): Promise<string> {
  const scanId = randomUUID();
  const db = ctx.database.handle.db;
  await sql`insert into scans (id, tenant_id, scan_type, name, target, target_type, priority,
      priority_rank, status, progress, options, timeout_seconds, result_count, started_at,
      completed_at)
    values (${scanId}, ${tenantId}, 'nmap', 'export', '203.0.113.10', 'ip', 'normal', 2,
      ${status}, 100, '{}', 3600, ${count}, now(), now())`.execute(db);
  const findings = Array.from({ length: count }, (_, i) => ({
    ruleId: RULES[i % RULES.length] ?? 'rule',
    title: `Title ${i % 11} "quoted", -1`,
    severity: SEVERITIES[i % 3 === 0 ? 0 : i % 5] ?? 'info',
    toolSeverity: i % 4 === 0 ? null : `tool-${i % 4}`,
    category: 'network',
    location: {
      host: `10.0.${i % 7}.${i % 250}`,
      port: i % 6 === 0 ? null : 1 + (i % 1000),
      protocol: 'tcp',
      url: i % 5 === 0 ? `https://example.com/p/${i}?q=a,b` : null,
    },
    identifiers: {
      cve: i % 9 === 0 ? [`CVE-2024-${1000 + (i % 13)}`] : [],
      cwe: [`CWE-${i % 17}`],
    },
    description: i % 8 === 0 ? null : `Line one ${i}\nline two; with ${'é'.repeat(i % 3)}`,
    evidence: `evidence ${i}`,
    remediation: i % 2 === 0 ? 'Upgrade.' : null,
    references: [`https://example.com/ref/${i % 23}`],
    // Repeated fingerprints: the finding id decides between them.
    fingerprint: (i % 400).toString(16).padStart(64, '0'),
    raw: { line: i },
  }));
  await insertFindings(db, { id: scanId, tenantId, scanType: 'nmap' }, findings);
  return scanId;
}

const EVERY_FINDING = { severity: null, engine: null, triage: null };

/** What the export was before it was streamed: every finding loaded, then rendered at once. */
async function renderedAtOnce(scanId: string) {
  const scans = ctx.app.composed.deps.scans;
  const scan = await scans.get(tenantId, scanId);
  if (scan === null) {
    throw new Error('no scan');
  }
  const { findings } = await scans.listFindings(tenantId, scanId, EVERY_FINDING, null, new Date());
  return {
    csv: renderCsv(findings),
    defectdojo: renderDefectDojo(findings),
    sarif: renderSarif({
      scan: {
        id: scan.id,
        scanType: scan.scanType,
        target: scan.target,
        status: scan.status,
        createdAt: scan.createdAt.toISOString(),
        completedAt: scan.completedAt?.toISOString() ?? null,
      },
      toolName: scan.scanType,
      toolVersion: '7.93',
      findings,
    }),
  };
}

const exportOf = (scanId: string, format: 'sarif' | 'csv' | 'defectdojo') =>
  ctx.app.request(`/api/v1/scans/${scanId}/results?format=${format}`, { headers: bearer(token) });

beforeAll(async () => {
  tenantId = randomUUID();
  token = await tokenFor(tenantId);
  // The tenant row (created by the first request of its token).
  expect((await ctx.app.request('/api/v1/usage', { headers: bearer(token) })).status).toBe(200);
});

describe('streamed exports', () => {
  it.each([
    ['no findings', 0],
    ['a few findings', 3],
    ['several pages', EXPORT_PAGE_SIZE * 2 + 37],
  ])('give the same bytes as rendering at once: %s', async (_name, count) => {
    const scanId = await scanWithFindings(count);
    const expected = await renderedAtOnce(scanId);
    const sarif = await exportOf(scanId, 'sarif');
    expect(sarif.status).toBe(200);
    expect(sarif.headers.get('content-type')).toContain('application/sarif+json');
    expect(sarif.headers.get('content-disposition')).toBe(
      `attachment; filename="rampart-scan-${scanId}.sarif"`,
    );
    expect(sarif.text).toBe(expected.sarif);
    // Streamed: sent in chunks, without a length known in advance.
    expect(sarif.headers.get('content-length')).toBeNull();
    const log = JSON.parse(sarif.text);
    expect(log.runs[0].results).toHaveLength(count);
    const csv = await exportOf(scanId, 'csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.text).toBe(expected.csv);
    expect(csv.headers.get('content-length')).toBeNull();
    const dojo = await exportOf(scanId, 'defectdojo');
    expect(dojo.status).toBe(200);
    expect(dojo.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(dojo.headers.get('content-disposition')).toBe(
      `attachment; filename="rampart-scan-${scanId}.defectdojo.json"`,
    );
    expect(dojo.headers.get('content-length')).toBeNull();
    expect(dojo.text).toBe(expected.defectdojo);
    const file = JSON.parse(dojo.text);
    expect(Object.keys(file)).toEqual(['findings']);
    expect(file.findings).toHaveLength(count);
  });

  it('still answers the envelope before streaming: unknown scan, results not ready', async () => {
    const missing = await exportOf(randomUUID(), 'sarif');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('SCAN_NOT_FOUND');
    const running = await scanWithFindings(2, 'running');
    const notReady = await exportOf(running, 'csv');
    expect(notReady.status).toBe(409);
    expect(notReady.body.code).toBe('RESULTS_NOT_READY');
    // Another tenant's scan is not found.
    const other = await tokenFor(randomUUID());
    const scanId = await scanWithFindings(1);
    const foreign = await ctx.app.request(`/api/v1/scans/${scanId}/results?format=sarif`, {
      headers: bearer(other),
    });
    expect(foreign.status).toBe(404);
  });
});

describe('format=defectdojo', () => {
  it('answers like the other formats: unknown format, not found, not ready, scope', async () => {
    const scanId = await scanWithFindings(3);
    const unknown = await ctx.app.request(`/api/v1/scans/${scanId}/results?format=defect-dojo`, {
      headers: bearer(token),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('INVALID_FIELD_VALUE');

    const running = await scanWithFindings(2, 'running');
    const notReady = await exportOf(running, 'defectdojo');
    expect(notReady.status).toBe(409);
    expect(notReady.body.code).toBe('RESULTS_NOT_READY');

    // Another tenant's scan is not found, even with results:read.
    const stranger = await createKey(ctx.app, await tokenFor(randomUUID()));
    const foreign = await ctx.app.request(`/api/v1/scans/${scanId}/results?format=defectdojo`, {
      headers: { 'x-api-key': stranger.rawKey },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('SCAN_NOT_FOUND');

    // The tenant's own key without results:read is refused; with it, the file comes.
    const path = `/api/v1/scans/${scanId}/results?format=defectdojo`;
    const readOnly = await createKey(ctx.app, token, { scopes: ['scans:read'] });
    const refused = await ctx.app.request(path, { headers: { 'x-api-key': readOnly.rawKey } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('INSUFFICIENT_SCOPE');
    const reader = await createKey(ctx.app, token, { scopes: ['results:read'] });
    const allowed = await ctx.app.request(path, { headers: { 'x-api-key': reader.rawKey } });
    expect(allowed.status).toBe(200);
    expect(JSON.parse(allowed.text).findings).toHaveLength(3);
  });

  it('writes network findings with endpoints, integer CWEs and CVEs as vulnerability_ids', async () => {
    const scanId = await scanWithFindings(20);
    const file = JSON.parse((await exportOf(scanId, 'defectdojo')).text);
    const { findings } = await ctx.app.composed.deps.scans.listFindings(
      tenantId,
      scanId,
      EVERY_FINDING,
      null,
      new Date(),
    );
    expect(file.findings).toHaveLength(findings.length);
    findings.forEach((finding, i) => {
      const out = file.findings[i];
      expect(out.unique_id_from_tool).toBe(finding.fingerprint);
      expect(out.vuln_id_from_tool).toBe(finding.ruleId);
      expect(out.cwe).toBe(Number(finding.identifiers.cwe[0]?.slice('CWE-'.length)));
      expect(out.vulnerability_ids ?? []).toEqual(finding.identifiers.cve);
      // The location as the fingerprint normalizes it (the query re-encoded and sorted).
      const { host, port, url } = finding.location;
      expect(out.endpoints).toEqual([
        url === null ? (port === null ? host : `tcp://${host}:${port}`) : normalizeUrl(url),
      ]);
    });
  });
});
