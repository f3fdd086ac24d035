import { describe, expect, it } from 'vitest';
import { engineNeedingVerification } from './verification-policy.js';

const ENGINE_NAMES = [
  'nmap',
  'zap',
  'trivy',
  'nuclei',
  'nikto',
  'sqlmap',
  'wapiti',
  'harvester',
  'sublist3r',
  'sentinel',
];

describe('engineNeedingVerification', () => {
  it('asks nothing when off', () => {
    for (const engine of ENGINE_NAMES) {
      expect(engineNeedingVerification('off', [engine])).toBeNull();
    }
  });

  it('exempts only theHarvester and sublist3r when intrusive', () => {
    const needing = ENGINE_NAMES.filter(
      (e) => engineNeedingVerification('intrusive', [e]) !== null,
    );
    expect(needing.sort()).toEqual(
      ENGINE_NAMES.filter((e) => e !== 'harvester' && e !== 'sublist3r').sort(),
    );
    expect(engineNeedingVerification('intrusive', ['sentinel', 'sublist3r'])).toBe('sentinel');
  });

  it('asks for every engine when all', () => {
    expect(engineNeedingVerification('all', ['sublist3r'])).toBe('sublist3r');
  });
});
