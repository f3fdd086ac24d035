import { Ajv } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { Finding, Severity } from './finding.js';
import {
  buildSarifLog,
  compareSarifResults,
  createSarifRuleCollector,
  createSarifWriter,
  networkLocationName,
  networkUri,
  type RenderSarifInput,
  renderSarif,
  SARIF_LEVELS,
  type SarifLog,
  SECURITY_SEVERITY_SCORES,
  sarifLevel,
} from './sarif.js';

// No SARIF schema ships in node_modules, and tests must not fetch one. This is a transcription of
// the OASIS sarif-schema-2.1.0.json definitions for every object Rampart writes (same property
// names, types, enums, formats, `required` and `uniqueItems`), limited to the properties Rampart
// uses. It is therefore stricter than the real schema, never looser: a log valid here is valid
// there, and a misspelt or invented property fails.
const propertyBag = {
  type: 'object',
  additionalProperties: true,
  properties: { tags: { type: 'array', uniqueItems: true, items: { type: 'string' } } },
};
const message = {
  type: 'object',
  additionalProperties: false,
  properties: { text: { type: 'string' } },
  required: ['text'],
};
const multiformatMessageString = {
  type: 'object',
  additionalProperties: false,
  properties: { text: { type: 'string' }, markdown: { type: 'string' } },
  required: ['text'],
};
const SARIF_SUBSET_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  additionalProperties: false,
  required: ['version', 'runs'],
  properties: {
    $schema: { type: 'string', format: 'uri' },
    version: { enum: ['2.1.0'] },
    runs: { type: 'array', items: { $ref: '#/definitions/run' } },
  },
  definitions: {
    propertyBag,
    message,
    run: {
      type: 'object',
      additionalProperties: false,
      required: ['tool'],
      properties: {
        tool: { $ref: '#/definitions/tool' },
        invocations: { type: 'array', items: { $ref: '#/definitions/invocation' } },
        automationDetails: {
          type: 'object',
          additionalProperties: false,
          properties: { id: { type: 'string' } },
        },
        results: { type: 'array', items: { $ref: '#/definitions/result' } },
        properties: { $ref: '#/definitions/propertyBag' },
      },
    },
    tool: {
      type: 'object',
      additionalProperties: false,
      required: ['driver'],
      properties: { driver: { $ref: '#/definitions/toolComponent' } },
    },
    toolComponent: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: {
        name: { type: 'string' },
        version: { type: 'string' },
        informationUri: { type: 'string', format: 'uri' },
        rules: {
          type: 'array',
          uniqueItems: true,
          items: { $ref: '#/definitions/reportingDescriptor' },
        },
      },
    },
    reportingDescriptor: {
      type: 'object',
      additionalProperties: false,
      required: ['id'],
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        shortDescription: { $ref: '#/definitions/multiformatMessageString' },
        fullDescription: { $ref: '#/definitions/multiformatMessageString' },
        help: { $ref: '#/definitions/multiformatMessageString' },
        helpUri: { type: 'string', format: 'uri' },
        defaultConfiguration: {
          type: 'object',
          additionalProperties: false,
          properties: { level: { enum: ['none', 'note', 'warning', 'error'] } },
        },
        properties: { $ref: '#/definitions/propertyBag' },
      },
    },
    multiformatMessageString,
    invocation: {
      type: 'object',
      additionalProperties: false,
      required: ['executionSuccessful'],
      properties: {
        executionSuccessful: { type: 'boolean' },
        endTimeUtc: { type: 'string', format: 'date-time' },
      },
    },
    result: {
      type: 'object',
      additionalProperties: false,
      required: ['message'],
      properties: {
        ruleId: { type: 'string' },
        ruleIndex: { type: 'integer', minimum: -1 },
        level: { enum: ['none', 'note', 'warning', 'error'] },
        message: { $ref: '#/definitions/message' },
        locations: { type: 'array', items: { $ref: '#/definitions/location' } },
        partialFingerprints: { type: 'object', additionalProperties: { type: 'string' } },
        baselineState: { enum: ['new', 'unchanged', 'updated', 'absent'] },
        suppressions: {
          type: 'array',
          uniqueItems: true,
          items: { $ref: '#/definitions/suppression' },
        },
        properties: { $ref: '#/definitions/propertyBag' },
      },
    },
    suppression: {
      type: 'object',
      additionalProperties: false,
      required: ['kind'],
      properties: {
        guid: { type: 'string' },
        kind: { enum: ['inSource', 'external'] },
        status: { enum: ['accepted', 'underReview', 'rejected'] },
        justification: { type: 'string' },
        properties: { $ref: '#/definitions/propertyBag' },
      },
    },
    location: {
      type: 'object',
      additionalProperties: false,
      properties: {
        physicalLocation: {
          type: 'object',
          additionalProperties: false,
          properties: {
            artifactLocation: {
              type: 'object',
              additionalProperties: false,
              properties: { uri: { type: 'string', format: 'uri-reference' } },
            },
          },
        },
        logicalLocations: {
          type: 'array',
          uniqueItems: true,
          items: {
            type: 'object',
            additionalProperties: false,
            properties: {
              name: { type: 'string' },
              fullyQualifiedName: { type: 'string' },
              kind: { type: 'string' },
            },
          },
        },
      },
    },
  },
};

const addFormats = addFormatsImport as unknown as typeof addFormatsImport.default;
const ajv = new Ajv({ strict: true, allErrors: true });
addFormats(ajv);
const validateSarif = ajv.compile(SARIF_SUBSET_SCHEMA);

function expectValidSarif(text: string): SarifLog {
  const log: unknown = JSON.parse(text);
  const valid = validateSarif(log);
  expect(validateSarif.errors ?? [], JSON.stringify(validateSarif.errors)).toEqual([]);
  expect(valid).toBe(true);
  return log as SarifLog;
}

let counter = 0;
function finding(overrides: Partial<Finding> = {}): Finding {
  counter += 1;
  return {
    id: `fnd_${String(counter).padStart(3, '0')}`,
    scanId: 'scan_1',
    engine: 'nmap',
    ruleId: 'open-port',
    title: 'Open port',
    severity: 'info',
    toolSeverity: null,
    category: 'open-port',
    location: { host: 'example.com', port: 443, protocol: 'tcp', url: null },
    identifiers: { cve: [], cwe: [] },
    description: null,
    evidence: null,
    remediation: null,
    references: [],
    raw: {},
    fingerprint: String(counter).padStart(64, '0'),
    createdAt: new Date(Date.UTC(2026, 0, 2)),
    correlation: null,
    issue: null,
    ...overrides,
  };
}

const urlFinding = finding({
  engine: 'zap',
  ruleId: '40012',
  title: 'Cross Site Scripting (Reflected)',
  severity: 'high',
  toolSeverity: 'High',
  category: 'vulnerability',
  location: {
    host: 'app.example.com',
    port: 443,
    protocol: null,
    url: 'https://app.example.com/search?q=x',
  },
  identifiers: { cve: [], cwe: ['CWE-79'] },
  description: 'User input is reflected without encoding.',
  remediation: 'Encode output.',
  references: ['not a url', 'https://owasp.org/www-community/attacks/xss/'],
});
const cveFinding = finding({
  engine: 'nmap',
  ruleId: 'CVE-2021-41773',
  title: 'Apache path traversal',
  severity: 'critical',
  toolSeverity: '9.8',
  category: 'vulnerability',
  location: { host: '2001:db8::10', port: 80, protocol: 'tcp', url: null },
  identifiers: { cve: ['CVE-2021-41773'], cwe: ['CWE-22'] },
  references: ['https://nvd.nist.gov/vuln/detail/CVE-2021-41773'],
});
const portFinding = finding({ severity: 'info' });
const otherPort = finding({
  severity: 'info',
  title: 'Open port',
  location: { host: 'example.com', port: 22, protocol: 'tcp', url: null },
});

function input(overrides: Partial<RenderSarifInput> = {}): RenderSarifInput {
  return {
    scan: {
      id: 'scan_1',
      scanType: 'nmap',
      target: 'example.com',
      status: 'completed',
      createdAt: '2026-01-02T00:00:00.000Z',
      completedAt: '2026-01-02T00:05:00.000Z',
    },
    toolName: 'nmap',
    toolVersion: '7.94',
    findings: [portFinding, urlFinding, otherPort, cveFinding],
    ...overrides,
  };
}

describe('the SARIF schema subset used here', () => {
  // Guards the guard: a validator that accepts anything would make the tests below vacuous.
  it('rejects a misspelt property, a bad level and a relative helpUri', () => {
    const log = JSON.parse(renderSarif(input())) as { runs: [Record<string, unknown>] };
    const variants = [
      { ...log, runs: [{ ...log.runs[0], reslts: [] }] },
      JSON.parse(renderSarif(input()).replace('"level": "error"', '"level": "fatal"')),
      JSON.parse(renderSarif(input()).replace('"helpUri": "https://', '"helpUri": "//')),
    ];
    for (const variant of variants) {
      expect(validateSarif(variant)).toBe(false);
    }
  });
});

describe('renderSarif', () => {
  it('writes a SARIF 2.1.0 log that validates against the schema subset', () => {
    const log = expectValidSarif(renderSarif(input()));
    expect(log.$schema).toBe('https://json.schemastore.org/sarif-2.1.0.json');
    expect(log.version).toBe('2.1.0');
    expect(log.runs).toHaveLength(1);
  });

  it('describes the tool, the invocation and the scan', () => {
    const [run] = expectValidSarif(renderSarif(input())).runs;
    expect(run.tool.driver).toMatchObject({
      name: 'nmap',
      version: '7.94',
      informationUri: 'https://nmap.org/',
    });
    expect(run.invocations).toEqual([
      { executionSuccessful: true, endTimeUtc: '2026-01-02T00:05:00.000Z' },
    ]);
    expect(run.automationDetails).toEqual({ id: 'nmap/example.com/scan_1' });
    expect(run.properties).toEqual({
      scanId: 'scan_1',
      scanType: 'nmap',
      target: 'example.com',
      status: 'completed',
      createdAt: '2026-01-02T00:00:00.000Z',
      completedAt: '2026-01-02T00:05:00.000Z',
    });
  });

  it('marks a failed or cancelled scan as not successful, and omits unknown parts', () => {
    for (const status of ['failed', 'cancelled']) {
      const text = renderSarif(
        input({
          scan: { ...input().scan, status, completedAt: null },
          toolName: 'sentinel',
          toolVersion: null,
        }),
      );
      const [run] = expectValidSarif(text).runs;
      expect(run.invocations).toEqual([{ executionSuccessful: false }]);
      expect(run.tool.driver).not.toHaveProperty('version');
      expect(run.tool.driver).not.toHaveProperty('informationUri');
      expect(run.properties.completedAt).toBeNull();
    }
  });

  it('uses a given http(s) informationUri and ignores others', () => {
    const given = buildSarifLog(input({ informationUri: 'https://tools.example/nmap' }));
    expect(given.runs[0].tool.driver.informationUri).toBe('https://tools.example/nmap');
    const refused = buildSarifLog(input({ informationUri: 'javascript:alert(1)' }));
    expect(refused.runs[0].tool.driver).not.toHaveProperty('informationUri');
    const prototypeName = buildSarifLog(input({ toolName: 'constructor' }));
    expect(prototypeName.runs[0].tool.driver).not.toHaveProperty('informationUri');
  });

  it('has one rule per distinct rule id, sorted, with texts, help, severity, precision and tags', () => {
    const [run] = expectValidSarif(renderSarif(input())).runs;
    expect(run.tool.driver.rules).toEqual([
      {
        id: '40012',
        name: 'Cross Site Scripting (Reflected)',
        shortDescription: { text: 'Cross Site Scripting (Reflected)' },
        fullDescription: { text: 'User input is reflected without encoding.' },
        help: {
          text: 'Encode output.\nReferences:\nhttps://owasp.org/www-community/attacks/xss/',
          markdown:
            'Encode output.\n\n**References**\n\n- <https://owasp.org/www-community/attacks/xss/>',
        },
        helpUri: 'https://owasp.org/www-community/attacks/xss/',
        defaultConfiguration: { level: 'error' },
        properties: {
          severity: 'high',
          'security-severity': '8.0',
          precision: 'medium',
          tags: ['security', 'vulnerability', 'CWE-79'],
        },
      },
      {
        id: 'CVE-2021-41773',
        name: 'Apache path traversal',
        shortDescription: { text: 'Apache path traversal' },
        fullDescription: { text: 'Apache path traversal' },
        help: {
          text: 'The tool gives no remediation for this rule.\nReferences:\nhttps://nvd.nist.gov/vuln/detail/CVE-2021-41773',
          markdown:
            'The tool gives no remediation for this rule.\n\n**References**\n\n- <https://nvd.nist.gov/vuln/detail/CVE-2021-41773>',
        },
        helpUri: 'https://nvd.nist.gov/vuln/detail/CVE-2021-41773',
        defaultConfiguration: { level: 'error' },
        properties: {
          severity: 'critical',
          'security-severity': '9.5',
          precision: 'medium',
          tags: ['security', 'vulnerability', 'CWE-22', 'CVE-2021-41773'],
        },
      },
      {
        id: 'open-port',
        name: 'Open port',
        shortDescription: { text: 'Open port' },
        fullDescription: { text: 'Open port' },
        help: {
          text: 'The tool gives no remediation for this rule.',
          markdown: expect.any(String),
        },
        defaultConfiguration: { level: 'note' },
        properties: {
          severity: 'info',
          'security-severity': '0.0',
          precision: 'medium',
          tags: ['security', 'open-port'],
        },
      },
    ]);
  });

  it('gives each severity its fixed security-severity score and level', () => {
    const severities = ['critical', 'high', 'medium', 'low', 'info'] as const;
    const findings = severities.map((severity) => finding({ ruleId: `r-${severity}`, severity }));
    const [run] = expectValidSarif(renderSarif(input({ findings }))).runs;
    expect(
      run.tool.driver.rules.map((rule) => [
        rule.properties.severity,
        rule.properties['security-severity'],
        rule.defaultConfiguration.level,
      ]),
    ).toEqual([
      ['critical', '9.5', 'error'],
      ['high', '8.0', 'error'],
      ['info', '0.0', 'note'],
      ['low', '3.0', 'note'],
      ['medium', '5.5', 'warning'],
    ]);
    expect(SECURITY_SEVERITY_SCORES).toEqual({
      critical: '9.5',
      high: '8.0',
      medium: '5.5',
      low: '3.0',
      info: '0.0',
    });
  });

  it('rates a rule with findings of several severities at the highest; results keep their own', () => {
    const mixed = [
      finding({ ruleId: 'mixed', severity: 'low', title: 'Low one', description: 'low text' }),
      finding({ ruleId: 'mixed', severity: 'high', title: 'High one', description: 'high text' }),
      finding({ ruleId: 'mixed', severity: 'medium', title: 'Medium one' }),
    ];
    const [run] = expectValidSarif(renderSarif(input({ findings: mixed }))).runs;
    expect(run.tool.driver.rules).toHaveLength(1);
    expect(run.tool.driver.rules[0]).toMatchObject({
      id: 'mixed',
      name: 'High one',
      fullDescription: { text: 'high text' },
      defaultConfiguration: { level: 'error' },
      properties: { severity: 'high', 'security-severity': '8.0' },
    });
    expect(run.results.map((r) => [r.ruleId, r.level, r.properties.severity])).toEqual([
      ['mixed', 'error', 'high'],
      ['mixed', 'warning', 'medium'],
      ['mixed', 'note', 'low'],
    ]);
  });

  it('takes precision from the engine of the rule, medium when not listed', () => {
    const findings = [
      finding({ ruleId: 'a', engine: 'sqlmap' }),
      finding({ ruleId: 'b', engine: 'trivy' }),
      finding({ ruleId: 'c', engine: 'nikto' }),
      finding({ ruleId: 'd', engine: 'constructor' }),
    ];
    const [run] = buildSarifLog(input({ findings })).runs;
    expect(run.tool.driver.rules.map((rule) => rule.properties.precision)).toEqual([
      'high',
      'high',
      'medium',
      'medium',
    ]);
  });

  it('escapes markdown in help and keeps only http(s) references', () => {
    const findings = [
      finding({
        remediation: 'Set [x](javascript:alert(1)) *now* <b>',
        references: ['javascript:alert(1)', 'https://example.com/a b'],
      }),
    ];
    const [run] = expectValidSarif(renderSarif(input({ findings }))).runs;
    expect(run.tool.driver.rules[0]?.help).toEqual({
      text: 'Set [x](javascript:alert(1)) *now* <b>\nReferences:\nhttps://example.com/a%20b',
      markdown:
        'Set \\[x\\]\\(javascript:alert\\(1\\)\\) \\*now\\* \\<b\\>\n\n**References**\n\n- <https://example.com/a%20b>',
    });
  });

  it('points every result at its rule (ruleIndex matches ruleId)', () => {
    const [run] = expectValidSarif(renderSarif(input())).runs;
    expect(run.results).toHaveLength(4);
    for (const result of run.results) {
      expect(run.tool.driver.rules[result.ruleIndex]?.id).toBe(result.ruleId);
    }
  });

  it('orders results most severe first, then by rule id and fingerprint', () => {
    const [run] = buildSarifLog(input()).runs;
    expect(run.results.map((result) => result.properties.findingId)).toEqual([
      cveFinding.id,
      urlFinding.id,
      portFinding.id,
      otherPort.id,
    ]);
  });

  it('writes a URL-located finding as a physical location', () => {
    const [run] = expectValidSarif(renderSarif(input())).runs;
    const result = run.results.find((r) => r.ruleId === '40012');
    expect(result).toEqual({
      ruleId: '40012',
      ruleIndex: 0,
      level: 'error',
      message: {
        text: 'Cross Site Scripting (Reflected)\n\nUser input is reflected without encoding.',
      },
      locations: [
        { physicalLocation: { artifactLocation: { uri: 'https://app.example.com/search?q=x' } } },
      ],
      partialFingerprints: { 'rampart/v1': urlFinding.fingerprint },
      properties: {
        severity: 'high',
        toolSeverity: 'High',
        category: 'vulnerability',
        cveIds: [],
        cweIds: ['CWE-79'],
        engine: 'zap',
        findingId: urlFinding.id,
      },
    });
  });

  it('writes a host/port finding with a CVE as tcp://host:port and a logical location', () => {
    const [run] = expectValidSarif(renderSarif(input())).runs;
    const result = run.results.find((r) => r.ruleId === 'CVE-2021-41773');
    expect(result?.level).toBe('error');
    expect(result?.message).toEqual({ text: 'Apache path traversal' });
    expect(result?.locations).toEqual([
      {
        physicalLocation: { artifactLocation: { uri: 'tcp://[2001:db8::10]:80' } },
        logicalLocations: [
          {
            name: '[2001:db8::10]:80/tcp',
            fullyQualifiedName: '[2001:db8::10]:80/tcp',
            kind: 'resource',
          },
        ],
      },
    ]);
    expect(result?.partialFingerprints).toEqual({ 'rampart/v1': cveFinding.fingerprint });
    expect(result?.properties).toMatchObject({
      severity: 'critical',
      toolSeverity: '9.8',
      cveIds: ['CVE-2021-41773'],
      cweIds: ['CWE-22'],
    });
  });

  it('writes an info finding without CVE at level note with a host:port/protocol name', () => {
    const [run] = expectValidSarif(renderSarif(input())).runs;
    const result = run.results.find((r) => r.properties.findingId === otherPort.id);
    expect(result?.level).toBe('note');
    expect(result?.locations[0]?.physicalLocation.artifactLocation.uri).toBe(
      'tcp://example.com:22',
    );
    expect(result?.locations[0]?.logicalLocations?.[0]?.name).toBe('example.com:22/tcp');
    expect(result?.properties.cveIds).toEqual([]);
  });

  it('gives every result a physical location and the fingerprint', () => {
    const [run] = expectValidSarif(renderSarif(input())).runs;
    for (const result of run.results) {
      expect(result.locations[0]?.physicalLocation.artifactLocation.uri).toMatch(/^[a-z]+:\/\//);
      expect(Object.values(result.partialFingerprints)).toHaveLength(1);
    }
  });

  it('never makes a non-http URL a link; a finding without a place gets the scan target', () => {
    const odd = [
      finding({ location: { host: null, port: null, protocol: null, url: 'javascript:alert(1)' } }),
      finding({ location: { host: 'h.example', port: null, protocol: null, url: 'not a url' } }),
      finding({ location: { host: null, port: null, protocol: null, url: null } }),
    ];
    const [run] = expectValidSarif(renderSarif(input({ findings: odd }))).runs;
    const byId = new Map(run.results.map((r) => [r.properties.findingId, r.locations]));
    expect(byId.get(odd[0]?.id ?? '')).toEqual([
      {
        physicalLocation: { artifactLocation: { uri: 'example.com' } },
        logicalLocations: [
          {
            name: 'javascript:alert(1)',
            fullyQualifiedName: 'javascript:alert(1)',
            kind: 'resource',
          },
        ],
      },
    ]);
    expect(byId.get(odd[1]?.id ?? '')).toEqual([
      {
        physicalLocation: { artifactLocation: { uri: 'tcp://h.example' } },
        logicalLocations: [
          { name: 'h.example', fullyQualifiedName: 'h.example', kind: 'resource' },
        ],
      },
    ]);
    expect(byId.get(odd[2]?.id ?? '')).toEqual([
      { physicalLocation: { artifactLocation: { uri: 'example.com' } } },
    ]);
    const image = buildSarifLog(
      input({
        scan: { ...input().scan, target: 'ghcr.io/org/app:1.2' },
        findings: [odd[2] as Finding],
      }),
    );
    expect(image.runs[0].results[0]?.locations).toEqual([
      { physicalLocation: { artifactLocation: { uri: 'ghcr.io/org/app%3A1.2' } } },
    ]);
    const site = buildSarifLog(
      input({
        scan: { ...input().scan, target: 'https://app.example/' },
        findings: [odd[2] as Finding],
      }),
    );
    expect(site.runs[0].results[0]?.locations[0]?.physicalLocation.artifactLocation.uri).toBe(
      'https://app.example/',
    );
  });

  it('is deterministic: same input, same bytes, whatever the order of findings', () => {
    const a = renderSarif(input());
    expect(renderSarif(input())).toBe(a);
    const reversed = renderSarif(input({ findings: [...input().findings].reverse() }));
    expect(reversed).toBe(a);
    expect(a.endsWith('}\n')).toBe(true);
  });

  it('writes an empty but valid run for no findings', () => {
    const [run] = expectValidSarif(renderSarif(input({ findings: [] }))).runs;
    expect(run.results).toEqual([]);
    expect(run.tool.driver.rules).toEqual([]);
  });

  it('keeps rule tags unique when findings of one rule repeat identifiers', () => {
    const repeated = [
      finding({ ruleId: 'r', identifiers: { cve: ['CVE-1'], cwe: ['CWE-1'] } }),
      finding({ ruleId: 'r', identifiers: { cve: ['CVE-1', 'CVE-2'], cwe: ['CWE-1'] } }),
    ];
    const [run] = expectValidSarif(renderSarif(input({ findings: repeated }))).runs;
    expect(run.tool.driver.rules[0]?.properties.tags).toEqual([
      'security',
      'open-port',
      'CWE-1',
      'CVE-1',
      'CVE-2',
    ]);
  });
});

describe('findings with issues (issue 23)', () => {
  const untracked = finding();
  const issue = (triage: Partial<Finding['issue'] & object>['triage'] = undefined) => ({
    id: 'issue-1',
    baselineState: 'unchanged' as const,
    triage: triage ?? {
      state: 'none' as const,
      reason: null,
      by: null,
      at: null,
      expiresAt: null,
    },
  });

  function resultOf(one: Finding) {
    const [run] = expectValidSarif(renderSarif(input({ findings: [one] }))).runs;
    return run.results[0];
  }

  it('writes neither baselineState nor suppressions for a finding without an issue', () => {
    const result = resultOf(untracked);
    expect(result).not.toHaveProperty('baselineState');
    expect(result).not.toHaveProperty('suppressions');
    expect(result?.properties).not.toHaveProperty('issueId');
  });

  it('writes the baseline state, the issue id and no suppression for an untriaged issue', () => {
    const result = resultOf(finding({ issue: { ...issue(), baselineState: 'new' } }));
    expect(result?.baselineState).toBe('new');
    expect(result?.suppressions).toEqual([]);
    expect(result?.properties.issueId).toBe('issue-1');
  });

  it('suppresses a triaged finding: external, accepted, the reason as justification', () => {
    const at = new Date(Date.UTC(2026, 0, 3));
    const expiresAt = new Date(Date.UTC(2027, 0, 1));
    const falsePositive = resultOf(
      finding({
        issue: issue({
          state: 'false_positive',
          reason: 'test host',
          by: 'k',
          at,
          expiresAt: null,
        }),
      }),
    );
    expect(falsePositive?.suppressions).toEqual([
      {
        kind: 'external',
        status: 'accepted',
        justification: 'test host',
        properties: { triage: 'false_positive' },
      },
    ]);
    const accepted = resultOf(
      finding({
        issue: issue({ state: 'accepted_risk', reason: 'legacy', by: 'k', at, expiresAt }),
      }),
    );
    expect(accepted?.suppressions).toEqual([
      {
        kind: 'external',
        status: 'accepted',
        justification: 'legacy',
        properties: { triage: 'accepted_risk', expiresAt: '2027-01-01T00:00:00.000Z' },
      },
    ]);
    const outOfScope = resultOf(
      finding({
        issue: issue({ state: 'out_of_scope', reason: null, by: 'k', at, expiresAt: null }),
      }),
    );
    expect(outOfScope?.suppressions).toEqual([
      { kind: 'external', status: 'accepted', properties: { triage: 'out_of_scope' } },
    ]);
  });
});

describe('createSarifWriter (the streamed export)', () => {
  /** The streamed pieces for findings sorted in result order, read in pages of `size`. */
  function streamed(source: RenderSarifInput, size: number): string {
    const sorted = [...source.findings].sort(compareSarifResults);
    const pages: Finding[][] = [];
    for (let at = 0; at < sorted.length; at += size) {
      pages.push(sorted.slice(at, at + size));
    }
    const collector = createSarifRuleCollector();
    for (const page of pages) {
      collector.add(page);
    }
    const { findings: _all, ...rest } = source;
    const writer = createSarifWriter(rest, collector.rules());
    return writer.head + pages.map((page) => writer.results(page)).join('') + writer.end();
  }

  const many = Array.from({ length: 23 }, (_, i) =>
    finding({
      ruleId: ['b', 'a', 'r-\uFFFD', 'r-\u{1F600}', '"quoted"\n'][i % 5] ?? 'x',
      severity: (['critical', 'high', 'medium', 'low', 'info'] as const)[i % 4] ?? 'info',
      title: `t${i % 3}`,
      identifiers: { cve: i % 2 ? [`CVE-${i % 3}`] : [], cwe: [`CWE-${i % 4}`] },
      references: [`https://example.com/${i % 6}`],
      fingerprint: String(i % 7).padStart(64, '0'),
    }),
  );

  it.each([1, 2, 5, 100])('gives the bytes of renderSarif in pages of %i', (size) => {
    for (const findings of [[], [portFinding], input().findings, many]) {
      const source = input({ findings });
      expect(streamed(source, size)).toBe(renderSarif(source));
    }
  });

  it('sorts strings by code point, as PostgreSQL\'s COLLATE "C" does', () => {
    const a = finding({ ruleId: 'r-\uFFFD', severity: 'high' });
    const b = finding({ ruleId: 'r-\u{1F600}', severity: 'high' });
    // UTF-16 code units would put U+1F600 (a surrogate pair, 0xD83D…) before U+FFFD.
    expect([b, a].sort(compareSarifResults).map((f) => f.ruleId)).toEqual([
      'r-\uFFFD',
      'r-\u{1F600}',
    ]);
  });
});

describe('sarifLevel', () => {
  it.each<[Severity, string]>([
    ['critical', 'error'],
    ['high', 'error'],
    ['medium', 'warning'],
    ['low', 'note'],
    ['info', 'note'],
  ])('%s → %s', (severity, level) => {
    expect(sarifLevel(severity)).toBe(level);
    expect(SARIF_LEVELS[severity]).toBe(level);
  });
});

describe('networkLocationName', () => {
  it.each<[string, number | null, string | null, string]>([
    ['example.com', 443, 'tcp', 'example.com:443/tcp'],
    ['example.com', 53, null, 'example.com:53'],
    ['example.com', null, null, 'example.com'],
    ['2001:db8::1', 22, 'tcp', '[2001:db8::1]:22/tcp'],
  ])('%s %s %s → %s', (host, port, protocol, name) => {
    expect(networkLocationName(host, port, protocol)).toBe(name);
  });
});

describe('networkUri', () => {
  it.each<[string, number | null, string | null, string]>([
    ['example.com', 443, 'tcp', 'tcp://example.com:443'],
    ['10.0.0.1', 53, 'udp', 'udp://10.0.0.1:53'],
    ['Example.COM', 53, null, 'tcp://example.com:53'],
    ['example.com', null, null, 'tcp://example.com'],
    ['2001:db8::1', 22, 'tcp', 'tcp://[2001:db8::1]:22'],
    ['fe80::1%eth0', 22, 'tcp', 'tcp://[fe80::1]:22'],
    ['bad host/x', 80, 'not a scheme', 'tcp://bad%20host%2fx:80'],
  ])('%s %s %s → %s', (host, port, protocol, uri) => {
    expect(networkUri(host, port, protocol)).toBe(uri);
    expect(URL.canParse(uri)).toBe(true);
  });
});
