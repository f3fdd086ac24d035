import { describe, expect, it } from 'vitest';
import { CappedOutput } from './capped-output.js';

describe('CappedOutput', () => {
  it('keeps the first cap bytes and says that more was dropped', () => {
    const output = new CappedOutput(5);
    output.push(Buffer.from('abc'));
    output.push(Buffer.from('defg'));
    output.push(Buffer.from('h'));
    expect(output.text()).toBe('abcde');
    expect(output.truncated).toBe(true);
  });

  it('is not truncated at exactly cap bytes', () => {
    const output = new CappedOutput(4);
    output.push(Buffer.from('ab'));
    output.push(Buffer.from('cd'));
    expect(output.text()).toBe('abcd');
    expect(output.truncated).toBe(false);
  });

  it('hands on whole UTF-8 lines across chunk boundaries, also past the cap', () => {
    const lines: string[] = [];
    const output = new CappedOutput(3, (line) => lines.push(line));
    const bytes = Buffer.from('é1\r\nzweite\nlast');
    for (let i = 0; i < bytes.length; i += 1) {
      output.push(bytes.subarray(i, i + 1));
    }
    output.end();
    // Lines are cut to `cap` characters; the `\r` of a CRLF is dropped.
    expect(lines).toEqual(['é1', 'zwe', 'las']);
    expect(output.text()).toBe('é1');
    expect(output.truncated).toBe(true);
  });

  it('swallows what the line callback throws, and keeps delivering', () => {
    const lines: string[] = [];
    const output = new CappedOutput(100, (line) => {
      lines.push(line);
      throw new Error('progress parser failed');
    });
    output.push(Buffer.from('one\ntwo\n'));
    output.end();
    expect(lines).toEqual(['one', 'two']);
    expect(output.text()).toBe('one\ntwo\n');
  });
});
