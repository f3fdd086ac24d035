import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectValidDraftFinding } from '../../../test/support/finding-schema.js';
import { sharedPath } from '../../../test/support/shared-dir.js';
import type { DraftFinding, ParseResult } from '../../domain/findings/finding.js';
import { finalizeFindings } from '../../domain/findings/fingerprint.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import type { ParseContext } from '../engine.js';
import { createTrivyParser, parseTrivyJson } from './parse.js';
import { MAX_PACKAGE_PATHS } from './records.js';

const FIXTURES = sharedPath('fixtures', 'scanner-output', 'trivy');
const fixture = (name: string) =>
  readFileSync(sharedPath('fixtures', 'scanner-output', 'trivy', name), 'utf8');

const IMAGE: ParseContext = {
  target: {
    type: 'image',
    value: 'bkimminich/juice-shop:v12.10.2',
    host: null,
    hostIsAddress: false,
  },
};
const REPO_URL = 'https://github.com/example/app';
const REPOSITORY: ParseContext = {
  target: { type: 'url', value: REPO_URL, host: 'github.com', hostIsAddress: false },
};
const parse = (text: string, context: ParseContext = IMAGE) => parseTrivyJson(text, context);
const parseFixture = (name: string, context: ParseContext = IMAGE) => parse(fixture(name), context);

/** The same text written through the streaming parser in chunks of `size` characters. */
function parseInChunks(text: string, size: number, context: ParseContext = IMAGE): ParseResult {
  const parser = createTrivyParser(context);
  for (let at = 0; at < text.length; at += size) {
    parser.write(text.slice(at, at + size));
  }
  return parser.end();
}

const CATEGORIES = ['vulnerability', 'misconfiguration', 'secret', 'license'];

/** A valid draft, and what trivy's findings hold, field by field. */
function expectTrivyFinding(finding: DraftFinding): void {
  expectValidDraftFinding(finding);
  expect(finding.ruleId).toMatch(/\S/);
  expect(finding.title).toMatch(/\S/);
  expect(finding.toolSeverity === null || /^[A-Z]+$/.test(finding.toolSeverity)).toBe(true);
  expect(CATEGORIES).toContain(finding.category);
  expect(finding.location.host).toBeNull();
  expect(finding.location.port).toBeNull();
  expect(finding.location.protocol).toBeNull();
  for (const cve of finding.identifiers.cve) {
    expect(cve).toMatch(/^CVE-\d{4}-\d{4,}$/);
  }
  for (const cwe of finding.identifiers.cwe) {
    expect(cwe).toMatch(/^CWE-\d+$/);
  }
  expect(new Set(finding.identifiers.cve).size).toBe(finding.identifiers.cve.length);
  expect(new Set(finding.identifiers.cwe).size).toBe(finding.identifiers.cwe.length);
  expect(new Set(finding.references).size).toBe(finding.references.length);
  for (const reference of finding.references) {
    expect(reference).toMatch(/^https?:\/\/\S+$/);
  }
  expect(JSON.stringify(finding.raw).length).toBeLessThan(4000);
  // Secrets stay masked, and no mask shows how long the secret was.
  expect(JSON.stringify(finding)).not.toMatch(/\*{4,}/);
}

function count<T extends string>(values: readonly T[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) {
    counts[value] = (counts[value] ?? 0) + 1;
  }
  return counts;
}

const bySeverity = (findings: readonly DraftFinding[]) => count(findings.map((f) => f.severity));
const byCategory = (findings: readonly DraftFinding[]) => count(findings.map((f) => f.category));
const withRule = (result: ParseResult, ruleId: string) =>
  result.findings.find((finding) => finding.ruleId === ruleId);

describe('parseTrivyJson on every trivy fixture', () => {
  const names = readdirSync(FIXTURES).filter((name) => name.endsWith('.json'));

  it('covers the six fixture files', () => {
    expect(names).toHaveLength(6);
  });

  it.each(names)('%s: valid findings, deterministic, no throw', (name) => {
    const first = parseFixture(name);
    for (const finding of first.findings) {
      expectTrivyFinding(finding);
    }
    expect(parseFixture(name)).toEqual(first);
  });

  it.each(names)('%s: streaming in 64 KiB, 4 KiB and 7-character chunks gives the same', (name) => {
    const text = fixture(name);
    const whole = parse(text);
    for (const size of [65_536, 4096, 7]) {
      expect(parseInChunks(text, size)).toEqual(whole);
    }
  });
});

describe('parseTrivyJson fixtures', () => {
  it('legacy null: a clean report with nothing to say', () => {
    expect(parseFixture('legacy-null.json')).toEqual({ findings: [], warnings: [] });
  });

  it('legacy array (debian 10.8): 93 vulnerabilities, none fixable, TEMP- ids without CVE', () => {
    const result = parseFixture('legacy-array-debian.json');
    expect(result.warnings).toEqual([]);
    expect(result.findings).toHaveLength(93);
    expect(byCategory(result.findings)).toEqual({ vulnerability: 93 });
    expect(bySeverity(result.findings)).toEqual({ high: 18, medium: 9, low: 65, info: 1 });
    expect(withRule(result, 'CVE-2011-3374|apt@1.8.2.2|debian (debian 10.8)')).toMatchObject({
      title: 'CVE-2011-3374 in apt 1.8.2.2',
      severity: 'low',
      toolSeverity: 'LOW',
      identifiers: { cve: ['CVE-2011-3374'], cwe: ['CWE-347'] },
      remediation: null,
      location: { host: null, port: null, protocol: null, url: null },
    });
    expect(result.findings.every((f) => f.remediation === null)).toBe(true);
    const unknown = withRule(
      result,
      'TEMP-0981404-911A2F|libzstd1@1.3.8+dfsg-3|debian (debian 10.8)',
    );
    expect(unknown).toMatchObject({ severity: 'info', toolSeverity: 'UNKNOWN' });
    expect(unknown?.identifiers.cve).toEqual([]);
    expect(unknown?.evidence).toContain('fixed version: none available');
  });

  it('SchemaVersion 2, clean image: a result without Vulnerabilities is zero findings', () => {
    expect(parseFixture('image-schema2-no-vulns.json')).toEqual({ findings: [], warnings: [] });
  });

  it('SchemaVersion 2 image: alpine and node vulnerabilities, copies of a package folded, 3 secrets', () => {
    const result = parseFixture('image-schema2-alpine-node-secrets.json');
    expect(result.warnings).toEqual([]);
    // 182 vulnerability records: 21 alpine, 161 node-pkg of which 32 repeat one
    // (package, version, id) in another node_modules path.
    expect(byCategory(result.findings)).toEqual({ vulnerability: 150, secret: 3 });
    const alpine = result.findings.filter((f) =>
      f.ruleId.endsWith('|bkimminich/juice-shop:v12.10.2 (alpine 3.11.12)'),
    );
    expect(alpine).toHaveLength(21);
    expect(result.findings[0]).toMatchObject({
      ruleId: 'CVE-2021-42378|busybox@1.31.1-r10|bkimminich/juice-shop:v12.10.2 (alpine 3.11.12)',
      severity: 'high',
      category: 'vulnerability',
    });
    const ansi = withRule(result, 'CVE-2021-3807|ansi-regex@4.1.0|Node.js');
    expect(ansi).toMatchObject({
      severity: 'high',
      toolSeverity: 'HIGH',
      identifiers: { cve: ['CVE-2021-3807'], cwe: ['CWE-1333'] },
      remediation: 'Upgrade ansi-regex to one of: 6.0.1, 5.0.1, 4.1.1, 3.0.1',
      raw: {
        pkgPaths: [
          'juice-shop/node_modules/ansi-regex/package.json',
          'usr/local/lib/node_modules/npm/node_modules/cliui/node_modules/ansi-regex/package.json',
          'usr/local/lib/node_modules/npm/node_modules/wrap-ansi/node_modules/ansi-regex/package.json',
          'usr/local/lib/node_modules/npm/node_modules/yargs/node_modules/ansi-regex/package.json',
        ],
        status: 'fixed',
        class: 'lang-pkgs',
        type: 'node-pkg',
      },
    });
    expect(ansi?.references[0]).toBe('https://avd.aquasec.com/nvd/cve-2021-3807');
    expect(ansi?.evidence).toContain(
      'cvss (ghsa): 7.5 CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
    );
    // GHSA and NSWG advisories are findings, but not CVE ids.
    expect(withRule(result, 'NSWG-ECO-428|base64url@0.0.6|Node.js')?.identifiers.cve).toEqual([]);
    expect(withRule(result, 'GHSA-rvg8-pwq2-xj7q|base64url@0.0.6|Node.js')).toBeDefined();
    const secrets = result.findings.filter((f) => f.category === 'secret');
    expect(secrets.map((f) => [f.ruleId, f.severity])).toEqual([
      [
        'private-key|/juice-shop/build/lib/insecurity.js|----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE',
        'high',
      ],
      [
        "jwt-token|/juice-shop/frontend/src/app/app.guard.spec.ts|ocalStorage.setItem('token', '***')",
        'medium',
      ],
      [
        'private-key|/juice-shop/lib/insecurity.js|----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE',
        'high',
      ],
    ]);
    expect(secrets[0]?.title).toBe(
      'Secret: Asymmetric Private Key in /juice-shop/build/lib/insecurity.js line 18',
    );
  });

  it('trivy repository (fs layout): pip vulnerabilities, a Dockerfile check, two masked secrets', () => {
    const result = parseFixture('fs-vulns-misconfig-secrets.json', REPOSITORY);
    expect(result.warnings).toEqual([]);
    expect(result.findings.map((f) => [f.ruleId, f.severity, f.category])).toEqual([
      ['CVE-2021-33503|urllib3@1.26.3|requirements.txt', 'high', 'vulnerability'],
      ['CVE-2021-28363|urllib3@1.26.3|requirements.txt', 'medium', 'vulnerability'],
      [
        'DS002|Dockerfile||Specify at least 1 USER command in Dockerfile with non-root user as argument',
        'high',
        'misconfiguration',
      ],
      ['github-pat|Dockerfile|ENV GITHUB_PAT=***', 'critical', 'secret'],
      ['github-pat|secret.txt|GITHUB_PAT=***', 'critical', 'secret'],
    ]);
    // A repository scan locates every finding at the repository.
    expect(result.findings.every((f) => f.location.url === REPO_URL)).toBe(true);
    expect(result.findings[0]).toMatchObject({
      title:
        'CVE-2021-33503 in urllib3 1.26.3: python-urllib3: ReDoS in the parsing of authority part of URL',
      identifiers: { cve: ['CVE-2021-33503'], cwe: ['CWE-400'] },
      remediation: 'Upgrade urllib3 to 1.26.5',
    });
    expect(result.findings[2]).toMatchObject({
      title: "DS002: Image user should not be 'root'",
      toolSeverity: 'HIGH',
      remediation: "Add 'USER <non root user name>' line to the Dockerfile",
      references: [
        'https://avd.aquasec.com/misconfig/ds002',
        'https://docs.docker.com/develop/develop-images/dockerfile_best-practices/',
      ],
    });
    expect(result.findings[3]?.evidence).toContain('match (masked): ENV GITHUB_PAT=***');
  });

  it('trivy k8s (2.6 MB): 454 vulnerabilities and 218 failed checks in 254 resources, 2 resource errors', () => {
    const result = parseFixture('large-k8s-cluster-2.6mb.json');
    expect(byCategory(result.findings)).toEqual({ vulnerability: 454, misconfiguration: 218 });
    expect(bySeverity(result.findings)).toEqual({ critical: 56, high: 202, medium: 111, low: 303 });
    expect(result.warnings).toEqual([
      'trivy could not scan securecodebox-system/Deployment/securecodebox-controller-manager: scan error: unable to initialize a scanner: unable to initialize a docker scanner: 4 errors occurred:',
      'trivy could not scan integration-tests/Job/scan-trivy-k8s-kvmnm: scan error: unable to initialize a scanner: unable to initialize a docker scanner: 4 errors occurred:',
    ]);
    const coredns = withRule(
      result,
      'CVE-2020-8911|github.com/aws/aws-sdk-go@v1.40.54|coredns|kube-system/Deployment/coredns',
    );
    expect(coredns).toMatchObject({ severity: 'medium', identifiers: { cwe: ['CWE-327'] } });
    expect(coredns?.evidence).toContain('resource: kube-system/Deployment/coredns');
    // One check failing for two containers of one Job: two findings, told apart by the message.
    const lowUserId = result.findings.filter((f) =>
      f.ruleId.startsWith('KSV020|Job/scan-trivy-k8s-kvmnm|'),
    );
    expect(lowUserId.map((f) => f.description?.split('\n\n')[1])).toEqual([
      "Container 'lurker' of Job 'scan-trivy-k8s-kvmnm' should set 'securityContext.runAsUser' > 10000",
      "Container 'trivy' of Job 'scan-trivy-k8s-kvmnm' should set 'securityContext.runAsUser' > 10000",
    ]);
    // Checks that repeat with the very same message in one resource are one issue.
    expect(finalizeFindings('trivy', result.findings)).toHaveLength(642);
  });
});

/** A SchemaVersion 2 report around the given results. */
function report(results: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ SchemaVersion: 2, ArtifactName: 'x:1', ...extra, Results: results });
}

function vuln(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    VulnerabilityID: 'CVE-2024-0001',
    PkgName: 'openssl',
    InstalledVersion: '3.0.1',
    FixedVersion: '3.0.2',
    Severity: 'HIGH',
    ...overrides,
  };
}

describe('parseTrivyJson shapes and edge cases', () => {
  it('reads the older cluster layout (resources under Vulnerabilities / Misconfigurations)', () => {
    const text = JSON.stringify({
      ClusterName: 'prod',
      Vulnerabilities: [
        {
          Namespace: 'default',
          Kind: 'Deployment',
          Name: 'web',
          Results: [
            { Target: 'nginx:1.21 (debian 11.3)', Class: 'os-pkgs', Vulnerabilities: [vuln()] },
          ],
        },
      ],
      Misconfigurations: [
        {
          Namespace: 'default',
          Kind: 'Deployment',
          Name: 'web',
          Results: [
            {
              Target: 'Deployment/web',
              Class: 'config',
              Misconfigurations: [
                {
                  ID: 'KSV001',
                  Title: 'Process can elevate its own privileges',
                  Severity: 'MEDIUM',
                  Status: 'FAIL',
                },
                {
                  ID: 'KSV002',
                  Title: 'Default AppArmor profile',
                  Severity: 'MEDIUM',
                  Status: 'PASS',
                },
              ],
            },
          ],
        },
      ],
    });
    const result = parse(text);
    expect(result.warnings).toEqual([]);
    expect(result.findings.map((f) => f.ruleId)).toEqual([
      'CVE-2024-0001|openssl@3.0.1|nginx:1.21 (debian 11.3)|default/Deployment/web',
      'KSV001|Deployment/web|||default/Deployment/web',
    ]);
    expect(parseInChunks(text, 7)).toEqual(result);
  });

  it.each([
    ['an empty file', ''],
    ['whitespace only', '  \n\t\n'],
  ])('%s: no findings and a warning that trivy wrote no report', (_name, text) => {
    expect(parse(text)).toEqual({
      findings: [],
      warnings: ['trivy wrote no report (empty output)'],
    });
  });

  it.each([
    ['a report without Results', JSON.stringify({ SchemaVersion: 2, ArtifactName: 'x:1' })],
    ['Results: null', report([]).replace('[]', 'null')],
    ['Vulnerabilities: null', report([{ Target: 'x', Class: 'os-pkgs', Vulnerabilities: null }])],
    ['an empty cluster', JSON.stringify({ ClusterName: '', Resources: [] })],
    ['null with a newline', 'null\n'],
    ['a byte-order mark before the report', `\uFEFF${report([])}`],
  ])('%s is clean: no findings, no warnings', (_name, text) => {
    expect(parse(text)).toEqual({ findings: [], warnings: [] });
  });

  it('a cut-off report keeps the records read before the cut', () => {
    const text = fixture('image-schema2-alpine-node-secrets.json');
    const cut = text.slice(0, Math.floor(text.length / 2));
    const result = parse(cut);
    expect(result.findings.length).toBeGreaterThan(50);
    expect(result.findings.length).toBeLessThan(150);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(
      /^the trivy report is cut off or damaged \(.+\); \d+ record\(s\) before that point were read$/,
    );
    expect(parseInChunks(cut, 4096)).toEqual(result);
    // The kept findings are exactly the complete report's first ones.
    expect(result.findings.slice(0, 40)).toEqual(parse(text).findings.slice(0, 40));
  });

  it('a cut-off cluster report keeps whole resources and names the cut', () => {
    const text = fixture('large-k8s-cluster-2.6mb.json');
    const result = parse(text.slice(0, 1_000_000));
    expect(result.findings.length).toBeGreaterThan(100);
    expect(
      result.warnings.some((w) => w.startsWith('the trivy report is cut off or damaged')),
    ).toBe(true);
  });

  it.each([
    [
      'nmap XML',
      '<?xml version="1.0"?>\n<nmaprun scanner="nmap"></nmaprun>',
      'the output is not trivy JSON: ',
    ],
    ['plain text', 'FATAL Fatal error: image scan error', 'the output is not trivy JSON: '],
    [
      'a JSON number',
      '42',
      'the output is not a trivy report: its JSON is neither an object, an array nor null',
    ],
    [
      'a JSON string',
      '"report"',
      'the output is not a trivy report: its JSON is neither an object, an array nor null',
    ],
    [
      'a foreign JSON object',
      '{"@programName":"ZAP","site":[]}',
      'the output is not a trivy report: no SchemaVersion, Results or Resources',
    ],
  ])('%s: no findings and a warning', (_name, text, warning) => {
    const result = parse(text);
    expect(result.findings).toEqual([]);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]?.startsWith(warning)).toBe(true);
  });

  it('nuclei JSON lines are a second document after the first: reported as damaged, nothing read', () => {
    const line = '{"template-id":"tech-detect","info":{"severity":"info"}}';
    const result = parse(`${line}\n${line}\n`);
    expect(result.findings).toEqual([]);
    expect(result.warnings).toHaveLength(2);
    expect(result.warnings[0]).toBe(
      'the output is not a trivy report: no SchemaVersion, Results or Resources',
    );
  });

  it('invalid UTF-8 inside a string (arrives as U+FFFD) is kept as text', () => {
    const result = parse(
      report([{ Target: 'x', Vulnerabilities: [vuln({ Title: 'bad \uFFFD byte' })] }]),
    );
    expect(result.warnings).toEqual([]);
    expect(result.findings[0]?.title).toBe('CVE-2024-0001 in openssl 3.0.1: bad \uFFFD byte');
  });

  it('invalid UTF-8 between tokens is a damaged report, records before it are kept', () => {
    const good = report([{ Target: 'x', Vulnerabilities: [vuln()] }]);
    const damaged = `${good.slice(0, -2)},\uFFFD]}`;
    const result = parse(damaged);
    expect(result.findings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/^the trivy report is cut off or damaged/);
  });

  it('a huge line (a 5 MB description) is read and capped', () => {
    const text = report([
      { Target: 'x', Vulnerabilities: [vuln({ Description: 'A'.repeat(5_000_000) })] },
    ]);
    const [finding] = parse(text).findings;
    expect(finding?.description).toHaveLength(4001);
    expect(finding?.description?.endsWith('…')).toBe(true);
    expect(parseInChunks(text, 65_536)).toEqual(parse(text));
  });

  it('drops large lists nobody reads (Packages) without turning them into findings', () => {
    const packages = Array.from({ length: 20_000 }, (_, i) => ({
      Name: `pkg${i}`,
      Version: '1.0',
    }));
    const text = report([
      { Target: 'x', Class: 'lang-pkgs', Packages: packages, Vulnerabilities: [vuln()] },
    ]);
    expect(parseInChunks(text, 4096).findings).toHaveLength(1);
  });
});

describe('parseTrivyJson records', () => {
  it('misconfiguration PASS and EXCEPTION rows are not findings, FAIL and status-less rows are', () => {
    const checks = ['FAIL', 'PASS', 'EXCEPTION', undefined].map((Status, i) => ({
      ID: `DS00${i}`,
      Title: 'check',
      Severity: 'LOW',
      Status,
    }));
    const result = parse(
      report([{ Target: 'Dockerfile', Class: 'config', Misconfigurations: checks }]),
    );
    expect(result.findings.map((f) => f.ruleId)).toEqual([
      'DS000|Dockerfile||',
      'DS003|Dockerfile||',
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('not_affected vulnerabilities and records without an id are left out with warnings', () => {
    const result = parse(
      report([
        {
          Target: 'x',
          Vulnerabilities: [
            vuln({ Status: 'not_affected' }),
            vuln({ VulnerabilityID: '' }),
            'junk',
            vuln(),
          ],
        },
      ]),
    );
    expect(result.findings).toHaveLength(1);
    expect(result.warnings).toEqual([
      '2 trivy record(s) without an id were skipped',
      '1 vulnerability record(s) with status not_affected were left out',
    ]);
  });

  it.each([
    ['CRITICAL', { Severity: 'CRITICAL' }, 'critical'],
    ['lower case high', { Severity: 'high' }, 'high'],
    ['UNKNOWN', { Severity: 'UNKNOWN' }, 'info'],
    ['an unheard-of value', { Severity: 'SEVERE' }, 'info'],
    [
      'missing, vendor rating 4 from the source',
      { Severity: undefined, SeveritySource: 'nvd', VendorSeverity: { nvd: 4 } },
      'critical',
    ],
    [
      'missing, vendor rating 1',
      { Severity: undefined, SeveritySource: 'ghsa', VendorSeverity: { ghsa: 1, nvd: 4 } },
      'low',
    ],
    ['missing, no vendor rating', { Severity: undefined }, 'info'],
  ])('severity %s', (_name, overrides, expected) => {
    const [finding] = parse(report([{ Target: 'x', Vulnerabilities: [vuln(overrides)] }])).findings;
    expect(finding?.severity).toBe(expected);
  });

  it('CVE and CWE ids are upper case and de-duplicated; NVD-CWE-* is no id; links are web links', () => {
    const [finding] = parse(
      report([
        {
          Target: 'x',
          Vulnerabilities: [
            vuln({
              VulnerabilityID: 'cve-2024-0001',
              CweIDs: ['cwe-79', 'CWE-79', 'NVD-CWE-Other', 'CWE-20', 42],
              PrimaryURL: 'https://avd.aquasec.com/nvd/cve-2024-0001',
              References: [
                'https://avd.aquasec.com/nvd/cve-2024-0001',
                'javascript:alert(1)',
                'ftp://x',
                'http://a.example/b',
              ],
            }),
          ],
        },
      ]),
    ).findings;
    expect(finding?.identifiers).toEqual({ cve: ['CVE-2024-0001'], cwe: ['CWE-79', 'CWE-20'] });
    expect(finding?.references).toEqual([
      'https://avd.aquasec.com/nvd/cve-2024-0001',
      'http://a.example/b',
    ]);
  });

  it('lists at most 20 package paths and counts the rest', () => {
    const copies = Array.from({ length: 25 }, (_, i) =>
      vuln({ PkgPath: `app${i}/node_modules/openssl/package.json` }),
    );
    const [finding, ...others] = parse(
      report([{ Target: 'Node.js', Vulnerabilities: copies }]),
    ).findings;
    expect(others).toEqual([]);
    expect(finding?.raw).toMatchObject({ pkgPaths: expect.any(Array) });
    expect(JSON.stringify(finding?.raw).match(/node_modules/g)).toHaveLength(MAX_PACKAGE_PATHS);
    expect(finding?.evidence?.endsWith('\nmore copies: 5')).toBe(true);
  });

  it('secrets: the source lines are never kept, the match only masked', () => {
    const secret = {
      RuleID: 'aws-access-key-id',
      Category: 'AWS',
      Severity: 'CRITICAL',
      Title: 'AWS Access Key ID',
      StartLine: 3,
      EndLine: 3,
      Code: {
        Lines: [{ Number: 3, Content: 'AKIA-NOT-MASKED-IN-A-HOSTILE-REPORT', IsCause: true }],
      },
      Match: 'aws_access_key_id = ********************',
    };
    const [finding] = parse(
      report([{ Target: 'config/.env', Class: 'secret', Secrets: [secret] }]),
    ).findings;
    expect(JSON.stringify(finding)).not.toContain('AKIA');
    expect(finding).toMatchObject({
      ruleId: 'aws-access-key-id|config/.env|aws_access_key_id = ***',
      title: 'Secret: AWS Access Key ID in config/.env line 3',
      severity: 'critical',
      category: 'secret',
    });
  });

  it('license findings carry the classification', () => {
    const license = {
      Severity: 'HIGH',
      Category: 'restricted',
      PkgName: 'readline',
      FilePath: '',
      Name: 'GPL-3.0',
      Confidence: 1,
      Link: '',
    };
    const [finding] = parse(
      report([{ Target: 'Node.js', Class: 'license', Licenses: [license] }]),
    ).findings;
    expect(finding).toMatchObject({
      ruleId: 'license:GPL-3.0|readline|Node.js',
      title: 'License GPL-3.0 in readline',
      severity: 'high',
      category: 'license',
      references: [],
    });
  });

  it('records written before their Target and resource (trivy writes those first) are still placed', () => {
    const text = JSON.stringify({
      ClusterName: 'c',
      Resources: [
        {
          Results: [{ Vulnerabilities: [vuln()], Target: 'api' }],
          Namespace: 'prod',
          Kind: 'Deployment',
          Name: 'api',
        },
        {
          Namespace: 'prod',
          Kind: 'Pod',
          Name: 'db',
          Results: [{ Target: 'postgres', Vulnerabilities: [vuln()] }],
        },
      ],
    });
    const result = parse(text);
    expect(result.findings.map((f) => f.ruleId)).toEqual([
      'CVE-2024-0001|openssl@3.0.1|api|prod/Deployment/api',
      'CVE-2024-0001|openssl@3.0.1|postgres|prod/Pod/db',
    ]);
    expect(parseInChunks(text, 7)).toEqual(result);
  });

  it('names at most 20 resources trivy could not scan and counts the rest', () => {
    const resources = Array.from({ length: 23 }, (_, i) => ({
      Namespace: 'ns',
      Kind: 'Pod',
      Name: `p${i}`,
      Error: 'scan error: unable to inspect the image\n\t* details',
    }));
    const { findings, warnings } = parse(
      JSON.stringify({ ClusterName: 'c', Resources: resources }),
    );
    expect(findings).toEqual([]);
    expect(warnings).toHaveLength(21);
    expect(warnings[0]).toBe(
      'trivy could not scan ns/Pod/p0: scan error: unable to inspect the image',
    );
    expect(warnings[20]).toBe('trivy could not scan 3 more resource(s)');
  });
});

describe('fingerprints of trivy findings', () => {
  /** Changes what trivy may report differently for the same issue on a rescan. */
  function rescanned(text: string): string {
    return JSON.stringify(JSON.parse(text), (key, value: unknown) => {
      switch (key) {
        case 'CreatedAt':
        case 'LastModifiedDate':
        case 'PublishedDate':
          return '2031-01-01T00:00:00Z';
        case 'DiffID':
        case 'Digest':
          return `sha256:${'f'.repeat(64)}`;
        case 'V3Score':
          return 9.9;
        case 'Title':
        case 'Description':
          return `${String(value)} (reworded)`;
        case 'Severity':
          return 'LOW';
        case 'StartLine':
        case 'EndLine':
          return typeof value === 'number' ? value + 7 : value;
        case 'References':
          return Array.isArray(value) ? [...value].reverse() : value;
        default:
          return value;
      }
    });
  }

  const fingerprints = (result: ParseResult, engine = 'trivy') =>
    finalizeFindings(engine, result.findings).map((f) => f.fingerprint);

  it.each([
    'fs-vulns-misconfig-secrets.json',
    'image-schema2-alpine-node-secrets.json',
    'large-k8s-cluster-2.6mb.json',
    'legacy-array-debian.json',
  ])('%s: the same issues on a rescan keep their fingerprints', (name) => {
    const first = fingerprints(parseFixture(name));
    expect(first.length).toBeGreaterThan(0);
    expect(new Set(first).size).toBe(first.length);
    expect(fingerprints(parse(rescanned(fixture(name))))).toEqual(first);
  });

  it('another installed version, package, target or resource is another issue', () => {
    const base = { Target: 'requirements.txt', Vulnerabilities: [vuln()] };
    const variants = [
      report([base]),
      report([{ ...base, Vulnerabilities: [vuln({ InstalledVersion: '3.0.2' })] }]),
      report([{ ...base, Vulnerabilities: [vuln({ PkgName: 'libssl3' })] }]),
      report([{ ...base, Vulnerabilities: [vuln({ VulnerabilityID: 'CVE-2024-0002' })] }]),
      report([{ ...base, Target: 'api/requirements.txt' }]),
      JSON.stringify({
        ClusterName: 'c',
        Resources: [{ Namespace: 'a', Kind: 'Pod', Name: 'p', Results: [base] }],
      }),
      JSON.stringify({
        ClusterName: 'c',
        Resources: [{ Namespace: 'b', Kind: 'Pod', Name: 'p', Results: [base] }],
      }),
    ];
    const all = variants.flatMap((text) => fingerprints(parse(text)));
    expect(all).toHaveLength(variants.length);
    expect(new Set(all).size).toBe(variants.length);
  });

  it('the same report of two repositories gives two sets of issues', () => {
    const text = fixture('fs-vulns-misconfig-secrets.json');
    const other: ScanTarget = {
      type: 'url',
      value: 'https://gitlab.example/other/app',
      host: 'gitlab.example',
      hostIsAddress: false,
    };
    const here = fingerprints(parse(text, REPOSITORY));
    const there = fingerprints(parse(text, { target: other }));
    expect(here.filter((fingerprint) => there.includes(fingerprint))).toEqual([]);
  });

  it('two secrets of one rule in one file differ; the same secret on another line does not', () => {
    const secret = (Match: string, StartLine: number) => ({
      RuleID: 'github-pat',
      Severity: 'CRITICAL',
      StartLine,
      EndLine: StartLine,
      Match,
    });
    const result = parse(
      report([
        {
          Target: '.env',
          Class: 'secret',
          Secrets: [secret('GITHUB_PAT=*****', 1), secret('DEPLOY_TOKEN=*****', 2)],
        },
      ]),
    );
    const moved = parse(
      report([{ Target: '.env', Class: 'secret', Secrets: [secret('GITHUB_PAT=**********', 9)] }]),
    );
    const [first, second] = fingerprints(result);
    expect(first).not.toBe(second);
    expect(fingerprints(moved)).toEqual([first]);
  });
});
