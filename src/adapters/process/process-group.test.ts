import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseProcStat } from './process-group.js';

describe('parseProcStat', () => {
  it('reads pid, state and process group of a /proc/<pid>/stat line', () => {
    expect(parseProcStat('4242 (sqlmap) S 4200 4242 4242 0 -1 4194560')).toEqual({
      pid: 4242,
      state: 'S',
      pgrp: 4242,
    });
  });

  it('finds the fields after the last parenthesis when comm holds spaces and brackets', () => {
    expect(parseProcStat('77 (a) Z (b)) Z 1 70 70 0')).toEqual({ pid: 77, state: 'Z', pgrp: 70 });
  });

  it('reads the start time, field 22, of a whole line', () => {
    const line =
      '17349 (nmap) S 17348 17349 6830 0 -1 4194560 1046 0 0 0 3 1 0 0 20 0 1 0 1843925 25444352 3271 18446744073709551615';
    expect(parseProcStat(line)).toEqual({
      pid: 17349,
      state: 'S',
      pgrp: 17349,
      startTime: '1843925',
    });
  });

  it('is undefined for a line it cannot read', () => {
    expect(parseProcStat('')).toBeUndefined();
    expect(parseProcStat('12 (cut')).toBeUndefined();
    expect(parseProcStat('12 (x) R')).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('reads this process from /proc', () => {
    expect(parseProcStat(readFileSync('/proc/self/stat', 'utf8'))).toMatchObject({
      pid: process.pid,
      state: 'R',
      startTime: expect.stringMatching(/^\d+$/),
    });
  });
});
