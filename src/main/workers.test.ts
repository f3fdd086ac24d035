import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineAvailability } from '../adapters/http/app-deps.js';
import { loadConfig } from '../config/load-config.js';
import { probeEngines } from './compose.js';
import { realEngineRunners } from './workers.js';

// The scanners of .ci/run are installed on the machines the suite runs on: nmap, nikto, sqlmap,
// wapiti and sublist3r are found on PATH, so the pool below is a real subset of what was found.
describe('realEngineRunners and WORKER_ENGINES', () => {
  let found: EngineAvailability[];
  beforeAll(async () => {
    found = await probeEngines();
  }, 30_000);

  it('runs every installed scanner when WORKER_ENGINES is unset', async () => {
    const runners = realEngineRunners(loadConfig({}), found, null);
    expect([...runners.keys()]).toEqual(expect.arrayContaining(['nmap', 'nikto', 'wapiti']));
  });

  it('runs only the engines of its pool when WORKER_ENGINES names them', async () => {
    const config = loadConfig({ WORKER_ENGINES: 'nikto,wapiti,zap' });
    const runners = realEngineRunners(config, found, null);
    // zap is named but not installed here: it stays out, as without WORKER_ENGINES.
    expect([...runners.keys()].sort()).toEqual(['nikto', 'wapiti']);
  });
});
