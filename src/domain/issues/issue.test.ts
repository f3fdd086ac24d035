import { describe, expect, it } from 'vitest';
import { baselineStateOf, enginesThatLooked, statusWhenMissed, statusWhenSeen } from './issue.js';

describe('issue status', () => {
  it('opens a new issue, reopens a fixed one and keeps the others when seen', () => {
    expect(statusWhenSeen(null)).toBe('open');
    expect(statusWhenSeen('fixed')).toBe('reopened');
    expect(statusWhenSeen('open')).toBe('open');
    expect(statusWhenSeen('reopened')).toBe('reopened');
  });

  it('moves to fixed only when a completed scan of its engine missed it', () => {
    const nmap = { end: 'completed', engines: ['nmap'] } as const;
    expect(statusWhenMissed('open', 'nmap', nmap)).toBe('fixed');
    expect(statusWhenMissed('reopened', 'nmap', nmap)).toBe('fixed');
    expect(statusWhenMissed('open', 'nuclei', nmap)).toBe('open');
    expect(statusWhenMissed('open', 'nmap', { end: 'partial', engines: ['nmap'] })).toBe('open');
  });

  it('counts the completed children of a sentinel scan as the engines that looked', () => {
    expect(enginesThatLooked('nmap', null)).toEqual(['nmap']);
    expect(
      enginesThatLooked('sentinel', [
        { engine: 'nmap', completed: true },
        { engine: 'nuclei', completed: false },
        { engine: 'zap', completed: true },
      ]),
    ).toEqual(['nmap', 'zap']);
  });
});

describe('baseline state of a finding', () => {
  const fields = {
    severity: 'high',
    title: 'Reflected XSS',
    category: 'xss',
    cve: [],
    cwe: ['CWE-79', 'CWE-80'],
  };

  it('is new when the scan created the issue or reopens a fixed one', () => {
    expect(baselineStateOf(fields, null)).toBe('new');
    expect(baselineStateOf(fields, { ...fields, status: 'fixed' })).toBe('new');
  });

  it('is unchanged when the rated and named fields are the same, identifiers as sets', () => {
    expect(baselineStateOf(fields, { ...fields, status: 'open' })).toBe('unchanged');
    expect(
      baselineStateOf(fields, {
        ...fields,
        cwe: ['CWE-80', 'CWE-79', 'CWE-79'],
        status: 'reopened',
      }),
    ).toBe('unchanged');
  });

  it('is updated when severity, title, category or an identifier changed', () => {
    for (const change of [
      { severity: 'medium' },
      { title: 'XSS' },
      { category: 'vulnerability' },
      { cve: ['CVE-2024-1'] },
      { cwe: ['CWE-79'] },
    ]) {
      expect(baselineStateOf(fields, { ...fields, ...change, status: 'open' })).toBe('updated');
    }
  });
});
