import { describe, expect, it } from 'vitest';
import { ENGINES } from './registry.js';
import { checkEngineOptions } from './validate-options.js';

describe('checkEngineOptions', () => {
  it('fills in the defaults of the specification', () => {
    const check = checkEngineOptions(ENGINES.nmap, {});
    expect(check).toEqual({
      ok: true,
      options: {
        ports: '1-1024',
        timing: 'T3',
        serviceDetection: true,
        osDetection: false,
        scriptScan: false,
        scripts: [],
        udpScan: false,
      },
    });
  });

  it("refuses, after the schema, what the engine's own check refuses (sublist3r ports)", () => {
    const check = checkEngineOptions(ENGINES.sublist3r, { ports: '80,443' });
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.kind).toBe('value');
      expect(check.error.code).toBe('INVALID_FIELD_VALUE');
      expect(check.error.message).toMatch(
        /^Invalid value for field options\.ports: not supported: sublist3r probes every name/,
      );
    }
    expect(checkEngineOptions(ENGINES.sublist3r, { threads: 5 }).ok).toBe(true);
  });

  it('keeps given values and does not touch the input', () => {
    const input = { timing: 'T4' };
    const check = checkEngineOptions(ENGINES.nmap, input);
    expect(check.ok && check.options.timing).toBe('T4');
    expect(input).toEqual({ timing: 'T4' });
  });

  it.each([
    ['nmap', { ports: 80 }, 'INVALID_FIELD_TYPE', 'Field options.ports must be of type string'],
    [
      'nmap',
      { timing: 'T9' },
      'INVALID_FIELD_VALUE',
      'Invalid value for field options.timing: T9 is not one of T0, T1, T2, T3, T4, T5',
    ],
    [
      'nmap',
      { bogus: true },
      'INVALID_FIELD_VALUE',
      'Invalid value for field options.bogus: unknown key',
    ],
    [
      'sqlmap',
      { level: 9 },
      'INVALID_FIELD_VALUE',
      'Invalid value for field options.level: 9 is above the maximum of 5',
    ],
    [
      'nuclei',
      { concurrency: '25' },
      'INVALID_FIELD_TYPE',
      'Field options.concurrency must be of type integer',
    ],
    [
      'zap',
      { scanPolicy: 'extreme' },
      'INVALID_FIELD_VALUE',
      'Invalid value for field options.scanPolicy: extreme is not one of light, standard, full',
    ],
  ])('%s %j → %s', (engine, options, code, message) => {
    const check = checkEngineOptions(ENGINES[engine as 'nmap'], options);
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.error.code).toBe(code);
      expect(check.error.message).toBe(message);
    }
  });

  it('reports a wrong type before a wrong value, whatever their order', () => {
    const check = checkEngineOptions(ENGINES.nmap, { timing: 'T9', ports: 80 });
    expect(check.ok === false && check.kind).toBe('structure');
    expect(check.ok === false && check.error.code).toBe('INVALID_FIELD_TYPE');
  });

  it('refuses options that are not an object', () => {
    const check = checkEngineOptions(ENGINES.nmap, ['-sV']);
    expect(check.ok === false && check.error.message).toBe('Field options must be of type object');
  });

  // The defaults of the specification's option tables ("none" and "all": the key is absent).
  it.each([
    [
      'zap',
      {
        scanPolicy: 'standard',
        spiderMaxDepth: 3,
        ajaxSpider: false,
        activeScan: true,
        contextInclude: [],
        contextExclude: [],
      },
    ],
    [
      'trivy',
      {
        scanners: ['vuln'],
        severity: ['CRITICAL', 'HIGH', 'MEDIUM'],
        ignoreUnfixed: false,
        skipDirs: [],
        skipFiles: [],
      },
    ],
    ['nuclei', { templates: ['cves'], concurrency: 25, rateLimit: 150, tags: [], excludeTags: [] }],
    ['nikto', { tuning: '123' }],
    ['sqlmap', { level: 1, risk: 1, technique: 'BEUSTQ', dbs: false, batch: true }],
    ['wapiti', { scope: 'domain', maxDepth: 3 }],
    ['harvester', { limit: 200, dnsLookup: false, dnsBrute: false }],
    ['sublist3r', { bruteforce: false, threads: 10 }],
    ['sentinel', { depth: 'standard', correlate: true, riskScore: true }],
  ])('gives %s the defaults of the specification', (engine, defaults) => {
    const check = checkEngineOptions(ENGINES[engine as 'nmap'], {});
    expect(check.ok && check.options).toMatchObject(defaults);
  });

  it.each(['broadcast', 'broadcast-dhcp-discover', 'external', 'dos', '../x', 'http-*', 'a,b'])(
    'refuses the nmap script %s',
    (script) => {
      const check = checkEngineOptions(ENGINES.nmap, { scripts: [script] });
      expect(check.ok === false && check.error.code).toBe('INVALID_FIELD_VALUE');
    },
  );

  it.each(['vuln', 'default', 'http-title', 'vulners'])('accepts the nmap script %s', (script) => {
    expect(checkEngineOptions(ENGINES.nmap, { scripts: [script] }).ok).toBe(true);
  });
});
