import type { TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ENGINE_NAMES } from './engine.js';
import { ENGINES, listEngines } from './registry.js';

/** The specification's "Target types and compatible engines" table, plus trivy's `image`. */
const TARGET_TABLE: Record<string, string[]> = {
  host: ['nmap', 'nuclei', 'sentinel'],
  url: ['zap', 'nikto', 'sqlmap', 'wapiti', 'nuclei', 'trivy', 'sentinel'],
  domain: ['nmap', 'nuclei', 'harvester', 'sublist3r', 'sentinel'],
  ip: ['nmap', 'nuclei', 'sentinel'],
  network: ['nmap'],
  image: ['trivy'],
};

// The HTTP layer validates options with Ajv (TypeBox's Value.Check ignores `enum` on strings).
const addFormats = addFormatsImport as unknown as typeof addFormatsImport.default;
const ajv = new Ajv({ strict: false });
addFormats(ajv);

function objectSchemas(schema: TSchema, path = 'options'): Array<[string, TSchema]> {
  const found: Array<[string, TSchema]> = [];
  if (schema.type === 'object') {
    found.push([path, schema]);
    for (const [key, child] of Object.entries(
      (schema.properties ?? {}) as Record<string, TSchema>,
    )) {
      found.push(...objectSchemas(child, `${path}.${key}`));
    }
  }
  if (schema.type === 'array' && schema.items) {
    found.push(...objectSchemas(schema.items as TSchema, `${path}[]`));
  }
  return found;
}

describe('engine registry', () => {
  it('lists the ten engines in the specification order', () => {
    expect(listEngines().map((e) => e.name)).toEqual([...ENGINE_NAMES]);
    expect(ENGINE_NAMES).toHaveLength(10);
  });

  it('gives each engine exactly the target types of the specification table', () => {
    for (const engine of listEngines()) {
      const expected = Object.entries(TARGET_TABLE)
        .filter(([, engines]) => engines.includes(engine.name))
        .map(([type]) => type)
        .sort();
      expect([...engine.targetTypes].sort(), engine.name).toEqual(expected);
    }
  });

  it('closes every options object, nested ones included', () => {
    for (const engine of listEngines()) {
      for (const [path, schema] of objectSchemas(engine.optionsSchema)) {
        expect(schema.additionalProperties, `${engine.name} ${path}`).toBe(false);
      }
    }
  });

  it('declares the specification defaults', () => {
    const defaults = (name: keyof typeof ENGINES) =>
      Object.fromEntries(
        Object.entries(ENGINES[name].optionsSchema.properties as Record<string, TSchema>)
          .filter(([, s]) => 'default' in s)
          .map(([k, s]) => [k, s.default]),
      );
    expect(defaults('nmap')).toEqual({
      ports: '1-1024',
      timing: 'T3',
      serviceDetection: true,
      osDetection: false,
      scriptScan: false,
      scripts: [],
      udpScan: false,
    });
    expect(defaults('zap')).toMatchObject({
      scanPolicy: 'standard',
      spiderMaxDepth: 3,
      ajaxSpider: false,
      activeScan: true,
    });
    expect(defaults('trivy')).toMatchObject({
      scanners: ['vuln'],
      severity: ['CRITICAL', 'HIGH', 'MEDIUM'],
      ignoreUnfixed: false,
    });
    expect(defaults('nuclei')).toMatchObject({
      templates: ['cves'],
      concurrency: 25,
      rateLimit: 150,
    });
    expect(defaults('nikto')).toEqual({ tuning: '123' });
    expect(defaults('sqlmap')).toEqual({
      level: 1,
      risk: 1,
      technique: 'BEUSTQ',
      dbs: false,
      batch: true,
    });
    expect(defaults('wapiti')).toMatchObject({ scope: 'domain', maxDepth: 3 });
    expect(defaults('harvester')).toMatchObject({ limit: 200, dnsLookup: false, dnsBrute: false });
    expect(defaults('sublist3r')).toMatchObject({ bruteforce: false, threads: 10 });
    expect(defaults('sentinel')).toEqual({ depth: 'standard', correlate: true, riskScore: true });
  });

  it.each([
    ['nmap', { ports: '22,80,443' }, true],
    ['nmap', { ports: '1-1024', timing: 'T4', scripts: ['vuln', 'default'] }, true],
    ['nmap', { ports: '-sV' }, false],
    ['nmap', { ports: '80;rm -rf /' }, false],
    ['nmap', { timing: 'T9' }, false],
    ['nmap', { scripts: ['--script-args=x'] }, false],
    ['nmap', { unknown: true }, false],
    ['sqlmap', { technique: 'BEUSTQ' }, true],
    ['sqlmap', { technique: 'X' }, false],
    ['sqlmap', { level: 6 }, false],
    ['nikto', { maxTime: '10m', tuning: '4x' }, true],
    ['nikto', { maxTime: '10 minutes' }, false],
    ['trivy', { severity: ['critical'] }, false],
    ['nuclei', { severity: ['CRITICAL'] }, false],
    ['sentinel', { engines: ['sentinel'] }, false],
    ['zap', { authentication: { type: 'header', headerName: 'X-Token', headerValue: 'v' } }, true],
    ['zap', { authentication: { type: 'header', extra: 1 } }, false],
  ] as const)('%s options %j valid: %s', (name, options, valid) => {
    expect(ajv.validate(ENGINES[name].optionsSchema, options)).toBe(valid);
  });
});
