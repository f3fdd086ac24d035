/**
 * SARIF in the real-scanner tests: the export through the HTTP API, the official SARIF 2.1.0
 * schema validation by Microsoft's SARIF Multitool (`@microsoft/sarif-multitool`, a self-contained
 * binary; `validate` writes its findings as SARIF, schema errors at level `error`), and the
 * properties GitHub code scanning and DefectDojo read.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import type { TestApp } from './harness.js';

/**
 * The Multitool executable itself: the package's `bin.js` would start it through a shell; the
 * package's main export is the executable's path, run here with an argument array.
 */
const MULTITOOL: string = createRequire(import.meta.url)('@microsoft/sarif-multitool');

/** A log as the tests read it: only what they look at is typed. */
export interface ExportedSarif {
  readonly text: string;
  readonly log: {
    runs: [
      {
        tool: { driver: { name: string; rules: SarifRule[] } };
        results: SarifResult[];
      },
    ];
  };
}

export interface SarifRule {
  id: string;
  shortDescription: { text: string };
  fullDescription: { text: string };
  help: { text: string; markdown?: string };
  properties: {
    severity: string;
    'security-severity': string;
    precision: string;
    tags: string[];
  };
}

export interface SarifResult {
  ruleId: string;
  level: string;
  locations: Array<{
    physicalLocation: { artifactLocation: { uri: string } };
    logicalLocations?: Array<{ name: string }>;
  }>;
  partialFingerprints: Record<string, string>;
  properties: { severity: string; findingId: string };
}

/** `GET /api/v1/scans/:id/results?format=sarif` with an API key. */
export async function exportSarif(app: TestApp, key: string, scanId: string) {
  const response = await app.request(`/api/v1/scans/${scanId}/results?format=sarif`, {
    headers: { 'x-api-key': key },
  });
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get('content-type')).toContain('application/sarif+json');
  return { text: response.text, log: JSON.parse(response.text) } as ExportedSarif;
}

/** A log the schema refuses (a driver without its required `name`): proves the validator looks. */
const CONTROL = JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: {} } }] });

/**
 * Validates the logs with the SARIF Multitool in one run (it takes seconds to start) beside a
 * control log the schema refuses, and expects schema errors for the control only.
 */
export async function expectSchemaValid(logs: Readonly<Record<string, string>>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'rampart-sarif-'));
  try {
    const files = Object.keys(logs).map((name) => join(dir, `${name}.sarif`));
    await Promise.all(
      Object.values(logs).map((text, index) => writeFile(files[index] ?? '', text)),
    );
    const control = join(dir, 'control.sarif');
    await writeFile(control, CONTROL);
    const output = join(dir, 'validation.sarif');
    await promisify(execFile)(
      MULTITOOL,
      ['validate', ...files, control, '--output', output, '--log', 'ForceOverwrite', '--quiet'],
      { timeout: 60_000 },
    );
    const report = JSON.parse(await readFile(output, 'utf8'));
    const errors: Array<{ file: string; rule: string; message: string }> = report.runs
      .flatMap((run: { results?: unknown[] }) => run.results ?? [])
      .filter((result: { level?: string }) => result.level === 'error')
      .map(
        (result: {
          ruleId: string;
          message: { text?: string; arguments?: string[] };
          locations?: Array<{ physicalLocation?: { artifactLocation?: { uri?: string } } }>;
        }) => ({
          file: result.locations?.[0]?.physicalLocation?.artifactLocation?.uri ?? '',
          rule: result.ruleId,
          message: result.message.text ?? (result.message.arguments ?? []).join(' '),
        }),
      );
    const isControl = (error: { file: string }) => error.file.endsWith('/control.sarif');
    expect(errors.filter(isControl).length).toBeGreaterThan(0);
    expect(errors.filter((error) => !isControl(error))).toEqual([]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Every rule carries what GitHub and DefectDojo read (security-severity, the `security` tag,
 * precision, descriptions, help); every result a physical location and the Rampart fingerprint.
 */
export function expectConsumerReady({ log }: ExportedSarif): void {
  const [run] = log.runs;
  expect(run.tool.driver.rules.length).toBeGreaterThan(0);
  for (const rule of run.tool.driver.rules) {
    expect(rule.properties['security-severity'], rule.id).toMatch(/^\d+\.\d$/);
    expect(rule.properties.tags, rule.id).toContain('security');
    expect(['very-high', 'high', 'medium', 'low'], rule.id).toContain(rule.properties.precision);
    expect(rule.shortDescription.text, rule.id).not.toBe('');
    expect(rule.fullDescription.text, rule.id).not.toBe('');
    expect(rule.help.text, rule.id).not.toBe('');
  }
  for (const result of run.results) {
    expect(result.locations, result.ruleId).toHaveLength(1);
    expect(result.locations[0]?.physicalLocation.artifactLocation.uri, result.ruleId).not.toBe('');
    expect(result.partialFingerprints['rampart/v1']).toMatch(/^[0-9a-f]{64}$/);
    expect(result.level).not.toBe('none');
  }
}
