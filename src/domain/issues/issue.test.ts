import { describe, expect, it } from 'vitest';
import { enginesThatLooked, statusWhenMissed, statusWhenSeen } from './issue.js';

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
