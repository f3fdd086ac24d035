import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { capOrDefault } from './commands/admin.js';
import { findingsAtOrAbove } from './commands/scans.js';
import { CliError, integer, parseKeyValues, table } from './runner.js';

describe('parseKeyValues', () => {
  it('keeps key=value a string and parses key:=json', () => {
    expect(
      parseKeyValues(['ports=443', 'topPorts:=100', 'scripts:=["http-title"]', 'a=b=c']),
    ).toEqual({ ports: '443', topPorts: 100, scripts: ['http-title'], a: 'b=c' });
  });

  it('refuses a pair without a key or with malformed JSON', () => {
    expect(() => parseKeyValues(['=1'])).toThrow(CliError);
    expect(() => parseKeyValues(['ports'])).toThrow(CliError);
    expect(() => parseKeyValues(['n:=nope'])).toThrow(/needs a JSON value/);
  });
});

describe('findingsAtOrAbove', () => {
  const summary = { critical: 0, high: 2, medium: 1, low: 4, info: 8 };
  it('counts the findings at or above a severity', () => {
    expect(findingsAtOrAbove(summary, 'critical')).toBe(0);
    expect(findingsAtOrAbove(summary, 'high')).toBe(2);
    expect(findingsAtOrAbove(summary, 'medium')).toBe(3);
    expect(findingsAtOrAbove(summary, 'info')).toBe(15);
  });
});

describe('table', () => {
  it('pads columns and shows missing values as -', () => {
    expect(
      table(
        [
          { id: 'a', tags: ['x', 'y'] },
          { id: 'bbb', tags: null },
        ],
        ['id', 'tags'],
      ),
    ).toEqual(['ID   TAGS', 'a    x,y', 'bbb  -']);
    expect(table([], ['id'])).toEqual(['(none)']);
  });
});

describe('integer', () => {
  it('parses a whole number and refuses anything else as a usage error', () => {
    expect(integer('20')).toBe(20);
    expect(integer('-1')).toBe(-1);
    for (const bad of ['', '1.5', '1e3', 'ten', '0x10', ' 5']) {
      expect(() => integer(bad)).toThrow(InvalidArgumentError);
    }
  });
});

describe('capOrDefault', () => {
  it('reads a whole number, or default as null (the service default)', () => {
    expect(capOrDefault('4')).toBe(4);
    expect(capOrDefault('default')).toBeNull();
    expect(() => capOrDefault('four')).toThrow(InvalidArgumentError);
  });
});
