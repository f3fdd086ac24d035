/**
 * `?format=defectdojo` of real scans: the real wapiti scans the deliberately vulnerable test app
 * twice, and each export is checked against DefectDojo's Generic Findings Import vocabulary, as
 * transcribed here from its parser (independently of the list in the code, which must agree with
 * it). DefectDojo de-duplicates this scan type by a hash of title, cwe, line, file_path and
 * description, so the two scans must give the same values of those for the same finding, although
 * wapiti injects another random payload each time.
 */

import { describe, expect, it } from 'vitest';
import { DEFECTDOJO_FINDING_KEYS } from '../../src/domain/findings/defectdojo.js';
import { createScan } from '../support/scans.js';
import { useWebScanApp } from '../support/web-scan.js';

/**
 * The keys DefectDojo's `dojo/tools/generic/json_parser.py` (django-DefectDojo, commit
 * 03609eb7c1b9c194f0cf220c1ee1c4cd14c0a4b1) accepts on a finding: `required`, `allowed`, and those
 * it pops before the check (endpoints, files, tags, vulnerability_ids, cwes). A key outside this
 * list makes it refuse the whole file ("Not allowed fields are present").
 */
const PARSER_FINDING_KEYS = `
  title severity description
  date cwe cve epss_score epss_percentile cvssv3 cvssv3_score cvssv4 cvssv4_score mitigation
  impact steps_to_reproduce severity_justification references active verified false_p
  out_of_scope risk_accepted under_review is_mitigated thread_id mitigated numerical_severity
  param payload line file_path component_name component_version static_finding dynamic_finding
  scanner_confidence unique_id_from_tool vuln_id_from_tool sast_source_object sast_sink_object
  sast_source_line sast_source_file_path nb_occurences publish_date service
  planned_remediation_date planned_remediation_version effort_for_fixing tags kev_date
  known_exploited ransomware_used fix_available fix_version
  endpoints files vulnerability_ids cwes
`
  .trim()
  .split(/\s+/);
/** The top-level keys the same parser reads (`_get_test_json`). */
const PARSER_FILE_KEYS = [
  'name',
  'type',
  'version',
  'description',
  'dynamic_tool',
  'static_tool',
  'soc',
  'findings',
];
/** `Finding.SEVERITIES` of DefectDojo. */
const DOJO_SEVERITIES = ['Critical', 'High', 'Medium', 'Low', 'Info'];
/** DefectDojo's legacy hash fields, which this scan type is de-duplicated on. */
const HASHED = ['title', 'cwe', 'line', 'file_path', 'description'] as const;

const ctx = useWebScanApp('wapiti');

type DojoFinding = Record<string, unknown>;

/** One real wapiti scan of the vulnerable app: its DefectDojo export and its findings as JSON. */
async function scanAndExport() {
  const { id } = await createScan(ctx.app, ctx.key, {
    target: ctx.vulnerable.url,
    scanType: 'wapiti',
    // The two modules that find the planted flaws, and a shallow crawl: a few seconds.
    options: { modules: ['xss', 'sql'], maxDepth: 2 },
  });
  const scan = await ctx.waitUntilEnded(id, 90_000);
  expect(scan.error).toBeUndefined();
  expect(scan.status).toBe('completed');
  const file = await ctx.app.request(`/api/v1/scans/${id}/results?format=defectdojo`, {
    headers: { 'x-api-key': ctx.key },
  });
  expect(file.status, file.text).toBe(200);
  expect(file.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(file.headers.get('content-disposition')).toBe(
    `attachment; filename="rampart-scan-${id}.defectdojo.json"`,
  );
  const findings = await ctx.app.request(`/api/v1/scans/${id}/findings?limit=100`, {
    headers: { 'x-api-key': ctx.key },
  });
  expect(findings.status).toBe(200);
  return {
    text: file.text,
    parsed: JSON.parse(file.text) as Record<string, unknown>,
    findings: findings.body.data.findings as Array<{ fingerprint: string; evidence: string }>,
  };
}

/** Every way this file could be refused by DefectDojo's parser, as a list of problems. */
function vocabularyProblems(file: Record<string, unknown>): string[] {
  const problems = Object.keys(file)
    .filter((key) => !PARSER_FILE_KEYS.includes(key))
    .map((key) => `top-level key ${key}`);
  const findings = file.findings as DojoFinding[];
  findings.forEach((finding, i) => {
    for (const key of Object.keys(finding)) {
      if (!PARSER_FINDING_KEYS.includes(key)) {
        problems.push(`finding ${i}: key ${key}`);
      }
    }
    for (const key of ['title', 'severity', 'description']) {
      if (typeof finding[key] !== 'string' || finding[key] === '') {
        problems.push(`finding ${i}: required ${key} missing`);
      }
    }
    if (!DOJO_SEVERITIES.includes(String(finding.severity))) {
      problems.push(`finding ${i}: severity ${String(finding.severity)}`);
    }
    if ('cwe' in finding && !Number.isInteger(finding.cwe)) {
      problems.push(`finding ${i}: cwe ${String(finding.cwe)} is not an integer`);
    }
    for (const list of ['vulnerability_ids', 'endpoints']) {
      const value = finding[list];
      if (
        value !== undefined &&
        !(Array.isArray(value) && value.every((v) => typeof v === 'string'))
      ) {
        problems.push(`finding ${i}: ${list} is not a list of strings`);
      }
    }
    if ('references' in finding && typeof finding.references !== 'string') {
      problems.push(`finding ${i}: references is not text`);
    }
  });
  return problems;
}

/** What DefectDojo hashes, for each finding by its unique id. */
function hashedByUniqueId(file: Record<string, unknown>) {
  return Object.fromEntries(
    (file.findings as DojoFinding[]).map((finding) => [
      finding.unique_id_from_tool,
      Object.fromEntries(HASHED.map((key) => [key, finding[key] ?? null])),
    ]),
  );
}

describe('DefectDojo export of real scans', () => {
  it('the code writes only keys of the parser vocabulary', () => {
    expect(DEFECTDOJO_FINDING_KEYS.filter((key) => !PARSER_FINDING_KEYS.includes(key))).toEqual([]);
  });

  it('two wapiti scans of the same app: files in the vocabulary, with the same hashed fields', async () => {
    const first = await scanAndExport();
    const second = await scanAndExport();

    for (const run of [first, second]) {
      expect(vocabularyProblems(run.parsed)).toEqual([]);
      const findings = run.parsed.findings as DojoFinding[];
      expect(findings.map((f) => f.vuln_id_from_tool).sort()).toEqual([
        'cross-site-scripting:GET:name',
        'sql-injection:GET:q',
      ]);
      // Our fingerprint is DefectDojo's unique id; the URL of the location is the endpoint.
      expect(findings.map((f) => f.unique_id_from_tool).sort()).toEqual(
        run.findings.map((f) => f.fingerprint).sort(),
      );
      expect(findings.find((f) => f.vuln_id_from_tool === 'sql-injection:GET:q')).toMatchObject({
        title: 'SQL Injection in /search (parameter q)',
        severity: 'Critical',
        cwe: 89,
        endpoints: [`${ctx.vulnerable.url}search`],
        static_finding: false,
        dynamic_finding: true,
      });
    }

    // wapiti's evidence differs between the runs (a random marker in the XSS payload) …
    const evidence = (run: typeof first) => run.findings.map((f) => f.evidence).sort();
    expect(evidence(second)).not.toEqual(evidence(first));
    // … and none of it reaches the files.
    const markers = [...first.findings, ...second.findings].flatMap(
      (finding) => /alert%28%27(\w+)%27/.exec(finding.evidence)?.[1] ?? [],
    );
    expect(new Set(markers).size).toBe(2);
    for (const marker of markers) {
      expect(first.text).not.toContain(marker);
      expect(second.text).not.toContain(marker);
    }
    // What DefectDojo hashes is the same for every finding of both scans.
    expect(hashedByUniqueId(second.parsed)).toEqual(hashedByUniqueId(first.parsed));
    const descriptions = (run: typeof first) =>
      (run.parsed.findings as DojoFinding[]).map((f) => f.description).sort();
    expect(descriptions(second)).toEqual(descriptions(first));
  }, 200_000);
});
