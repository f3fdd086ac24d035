import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLineSplitter } from './line-splitter.js';

function split(chunks: readonly string[], maxChars: number, carriageReturnEndsLine = false) {
  const lines: Array<[string, boolean]> = [];
  const splitter = createLineSplitter({ maxChars, carriageReturnEndsLine }, (text, cut) =>
    lines.push([text, cut]),
  );
  for (const chunk of chunks) {
    splitter.write(chunk);
  }
  splitter.end();
  return lines;
}

describe('createLineSplitter', () => {
  it('gives each line without its newline, and a last line without one', () => {
    expect(split(['a\nbc\n', '\nd'], 10)).toEqual([
      ['a', false],
      ['bc', false],
      ['', false],
      ['d', false],
    ]);
  });

  it('keeps the first maxChars characters of a longer line and flags it', () => {
    expect(split(['abcdef', 'gh\nij\n'], 3)).toEqual([
      ['abc', true],
      ['ij', false],
    ]);
    expect(split(['abcd'], 3)).toEqual([['abc', true]]);
  });

  it('keeps a \\r before the newline unless \\r ends lines', () => {
    expect(split(['a\r\nb'], 10)).toEqual([
      ['a\r', false],
      ['b', false],
    ]);
    expect(split(['a\r\nb\rc'], 10, true)).toEqual([
      ['a', false],
      ['', false],
      ['b', false],
      ['c', false],
    ]);
  });

  it('gives the same lines whatever the chunks', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', '\n', '\r') }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 1, max: 6 }),
        (text, cuts, maxChars) => {
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort(
            (a, b) => a - b,
          );
          const chunks = [0, ...points, text.length]
            .slice(0, -1)
            .map((from, i) => text.slice(from, [...points, text.length][i]));
          expect(split(chunks, maxChars, true)).toEqual(split([text], maxChars, true));
          expect(split(chunks, maxChars)).toEqual(split([text], maxChars));
        },
      ),
    );
  });
});
