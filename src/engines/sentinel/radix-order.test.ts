/**
 * The linear-time ordering correlation puts its output in (radix-order.ts), and the output key
 * that must agree with `compareOutputs` (source-table.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sourceFinding } from '../../../test/support/sentinel-findings.js';
import { correlate } from './correlate.js';
import { RADIX_THRESHOLD, radixOrder } from './radix-order.js';
import { compareOutputs, outputKeys, sourceTableOf } from './source-table.js';
import type { FindingSource } from './types.js';

/** The order a comparison sort gives: by key, then by `compare`. */
function expectedOrder(
  items: Int32Array,
  hi: Uint32Array,
  lo: Uint32Array,
  compare: (a: number, b: number) => number,
): number[] {
  return Array.from(items.keys())
    .sort(
      (a, b) =>
        (hi[a] ?? 0) - (hi[b] ?? 0) ||
        (lo[a] ?? 0) - (lo[b] ?? 0) ||
        compare(items[a] ?? 0, items[b] ?? 0),
    )
    .map((position) => items[position] ?? 0);
}

/** Keys drawn from a few values per half, so that equal keys (ties) are common. */
const keyHalf = fc.oneof(
  fc.constantFrom(0, 1, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff),
  fc.nat({ max: 0xffffffff }),
);

describe('radixOrder', () => {
  it('orders like a comparison sort, below and above the threshold, ties by the comparison', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(keyHalf, keyHalf, fc.nat({ max: 1000 })), {
          minLength: 0,
          maxLength: RADIX_THRESHOLD * 2,
        }),
        (rows) => {
          const items = Int32Array.from(rows, (_, i) => i);
          const hi = Uint32Array.from(rows, ([h]) => h);
          const lo = Uint32Array.from(rows, ([, l]) => l);
          // The tie-breaker: a value of each item, then the item itself (a total order).
          const compare = (a: number, b: number) =>
            (rows[a]?.[2] ?? 0) - (rows[b]?.[2] ?? 0) || a - b;
          const expected = expectedOrder(items, hi, lo, compare);
          expect(radixOrder(items, hi, lo, compare)).toEqual(expected);
          // The same bits given as signed 32-bit integers (as outputKeys gives them).
          const signed = (half: Uint32Array) => Array.from(half, (value) => value | 0);
          expect(radixOrder(Array.from(items), signed(hi), signed(lo), compare)).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('sorts a large input with every digit in use and leaves its arguments alone', () => {
    const count = 50_000;
    const items = Int32Array.from({ length: count }, (_, i) => count - 1 - i);
    // A fixed pseudo-random sequence: every 16-bit digit of both halves varies.
    let state = 12345;
    const next = () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state;
    };
    const hi = Uint32Array.from({ length: count }, next);
    const lo = Uint32Array.from({ length: count }, next);
    const copies = [items.slice(), hi.slice(), lo.slice()];
    const compare = (a: number, b: number) => a - b;
    const ordered = radixOrder(items, hi, lo, compare);
    expect(Array.from(ordered)).toEqual(expectedOrder(items, hi, lo, compare));
    expect([items, hi, lo]).toEqual(copies);
  });

  it('keeps items whose keys are all equal in the order of the comparison', () => {
    const count = RADIX_THRESHOLD + 10;
    const items = Int32Array.from({ length: count }, (_, i) => i);
    const zero = new Uint32Array(count);
    const ordered = radixOrder(items, zero, zero, (a, b) => b - a);
    expect(Array.from(ordered)).toEqual(Array.from(items).reverse());
  });
});

describe('outputKeys', () => {
  /** Fingerprints with hex digits, other ASCII, NUL, units above 127 and short strings. */
  const fingerprint = fc.oneof(
    fc.stringMatching(/^[0-9a-f]{0,12}$/),
    fc.string({
      maxLength: 12,
      unit: fc.constantFrom('\u0000', 'a', 'z', '~', '\u007f', 'é', '\uffff'),
    }),
    fc.string({ maxLength: 12 }),
  );
  const source = fc.record({
    fingerprint,
    severity: fc.constantFrom('critical', 'high', 'medium', 'low', 'info'),
    engine: fc.constantFrom('nmap', 'zap', 'nuclei', 'wapiti', 'sublist3r'),
  });

  it('never puts a finding before another that compareOutputs puts first', () => {
    fc.assert(
      fc.property(fc.array(source, { minLength: 2, maxLength: 30 }), (parts) => {
        const table = sourceTableOf(
          parts.map((part, i) =>
            sourceFinding({
              engine: part.engine,
              severity: part.severity,
              fingerprint: part.fingerprint,
              findingId: `f${i}`,
            }),
          ),
        );
        const positions = parts.map((_, i) => i);
        const { hi, lo } = outputKeys(table, positions);
        for (let a = 0; a < parts.length; a++) {
          for (let b = 0; b < parts.length; b++) {
            // Each half's bits, compared unsigned.
            const half = (list: readonly number[], at: number) => (list[at] ?? 0) >>> 0;
            const keyOrder = half(hi, a) - half(hi, b) || half(lo, a) - half(lo, b);
            if (keyOrder < 0) {
              expect(compareOutputs(table, a, b)).toBeLessThan(0);
            }
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('correlate above the radix threshold', () => {
  it('gives the output in compareOutputs order', () => {
    const findings = Array.from({ length: RADIX_THRESHOLD * 3 }, (_, i) =>
      sourceFinding({
        engine: (['nmap', 'zap', 'nuclei', 'wapiti'] as const)[i % 4],
        severity: (['critical', 'high', 'medium', 'low', 'info'] as const)[(i * 7) % 5],
        // Many shared prefixes and some equal fingerprints, so ties reach the comparison.
        fingerprint: `${(i % 97).toString(16).padStart(10, '0')}${i % 3}`,
        findingId: `finding-${i}`,
        // A host each: nothing merges, so every finding is its own output.
        location: { host: `10.0.${i >> 8}.${i & 255}` },
      }),
    );
    const output = correlate(findings);
    expect(output).toHaveLength(findings.length);
    const table = sourceTableOf(
      output.map((finding) => (finding.sources[0] as FindingSource).finding),
    );
    for (let i = 1; i < output.length; i++) {
      expect(compareOutputs(table, i - 1, i)).toBeLessThan(0);
    }
  });
});
