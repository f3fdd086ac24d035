/**
 * The new-scan form's options (web/src/lib/option-fields.ts) against the real engines: every
 * option of every engine's served schema has a form field of a known kind, and the options a
 * form builds when each field is changed pass that engine's own validation (the service's check
 * of POST /api/v1/scans). Here rather than next to the module: the dashboard's tests are compiled
 * for the browser, and the engine registry needs Node's types.
 */
import { describe, expect, it } from 'vitest';
import type { EngineDefinition } from '../src/engines/engine.js';
import { listEngines } from '../src/engines/registry.js';
import { checkEngineOptions } from '../src/engines/validate-options.js';
import {
  type FormValues,
  leafFields,
  optionFields,
  optionsFromForm,
} from '../web/src/lib/option-fields.js';

/** The schema as GET /api/v1/engines serves it: plain JSON. */
const served = (engine: EngineDefinition): unknown =>
  JSON.parse(JSON.stringify(engine.optionsSchema));

describe('the new-scan form over the real engines', () => {
  it('has a field of a known kind for every option of every engine', () => {
    expect(listEngines()).toHaveLength(10);
    for (const engine of listEngines()) {
      const fields = optionFields(served(engine));
      expect(
        fields.map((f) => f.path),
        engine.name,
      ).toEqual(Object.keys(engine.optionsSchema.properties));
      for (const leaf of leafFields(fields)) {
        expect(leaf.kind, `${engine.name}.${leaf.path}`).not.toBe('json');
      }
    }
  });

  it('gives options each engine accepts, from a change of every field', () => {
    const filled: Record<string, FormValues> = {
      nmap: { ports: '1-100', timing: 'T4', osDetection: true, scripts: 'vuln', topPorts: '10' },
      zap: {
        scanPolicy: 'light',
        spiderMaxDepth: '2',
        contextExclude: '.*logout.*',
        'authentication.type': 'cookie',
        'authentication.cookieName': 'sid',
        'authentication.cookieValue': 'abc',
      },
      trivy: { scanners: ['vuln', 'secret'], severity: ['HIGH'], skipDirs: 'node_modules' },
      nuclei: { templates: ['cves'], concurrency: '5', tags: 'cve, rce' },
      nikto: { tuning: '12', maxTime: '10m', ssl: 'false' },
      sqlmap: { level: '2', risk: '1', technique: 'BE', dbs: true },
      wapiti: { modules: ['xss'], scope: 'folder', maxDepth: '2', maxTime: '60s' },
      harvester: { sources: ['crtsh'], limit: '50', dnsBrute: true },
      sublist3r: { engines: ['bing'], threads: '3', bruteforce: false },
      sentinel: { depth: 'quick', engines: ['nmap', 'nuclei'], correlate: false },
    };
    for (const engine of listEngines()) {
      const options = optionsFromForm(optionFields(served(engine)), filled[engine.name] ?? {});
      expect(Object.keys(options).length, engine.name).toBeGreaterThan(1);
      const check = checkEngineOptions(engine, options);
      expect(check.ok ? null : check.error.message, engine.name).toBeNull();
    }
  });
});
