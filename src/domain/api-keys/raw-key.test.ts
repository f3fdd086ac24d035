import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  displayPrefix,
  generateRawKey,
  hashRawKey,
  isWellFormedRawKey,
  KEY_ALPHABET,
} from './raw-key.js';

describe('generateRawKey', () => {
  it('produces <prefix>_sk_ and 40 base62 characters, all unique over 10,000 keys', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const key = generateRawKey('rmp', randomBytes);
      expect(key).toMatch(/^rmp_sk_[A-Za-z0-9]{40}$/);
      keys.add(key);
    }
    expect(keys.size).toBe(10_000);
  });

  it('rejects bytes 248..255 instead of folding them onto the first characters', () => {
    // Every byte here is ≥ 248 except the last: only the last may produce characters.
    let call = 0;
    const source = (size: number): Uint8Array => {
      call++;
      const bytes = new Uint8Array(size).fill(call === 1 ? 250 : 61);
      return bytes;
    };
    const key = generateRawKey('rmp', source);
    expect(key).toBe(`rmp_sk_${'9'.repeat(40)}`);
  });

  it('spreads characters evenly over the alphabet', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++) {
      for (const ch of generateRawKey('rmp', randomBytes).slice(7)) {
        counts.set(ch, (counts.get(ch) ?? 0) + 1);
      }
    }
    expect(counts.size).toBe(KEY_ALPHABET.length);
    const expected = (2_000 * 40) / 62;
    for (const count of counts.values()) {
      expect(Math.abs(count - expected) / expected).toBeLessThan(0.15);
    }
  });
});

describe('isWellFormedRawKey', () => {
  const good = `rmp_sk_${'a'.repeat(40)}`;
  it.each([
    ['a well-formed key', good, true],
    ['another prefix', `abc_sk_${'a'.repeat(40)}`, false],
    ['39 characters', `rmp_sk_${'a'.repeat(39)}`, false],
    ['41 characters', `rmp_sk_${'a'.repeat(41)}`, false],
    ['a character outside base62', `rmp_sk_${'a'.repeat(39)}-`, false],
    ['surrounding whitespace', ` ${good}`, false],
    ['a trailing newline', `${good}\n`, false],
  ])('%s → %s', (_label, raw, expected) => {
    expect(isWellFormedRawKey(raw, 'rmp')).toBe(expected);
  });
});

describe('hashRawKey and displayPrefix', () => {
  it('hashes to 64 hex characters and shows only the first 6 random characters', () => {
    const raw = `rmp_sk_AbCdEf${'x'.repeat(34)}`;
    expect(hashRawKey(raw)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashRawKey(raw)).not.toBe(hashRawKey(`${raw.slice(0, -1)}y`));
    expect(displayPrefix(raw, 'rmp')).toBe('rmp_sk_AbCdEf');
  });
});
