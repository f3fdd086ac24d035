import { describe, expect, it } from 'vitest';
import { pinnedAddress } from './pin.js';

describe('pinnedAddress', () => {
  it.each<[string, readonly string[], string | null]>([
    ['one IPv4 address', ['192.0.2.10'], '192.0.2.10'],
    ['the first IPv4 address, in the resolver order', ['192.0.2.11', '192.0.2.10'], '192.0.2.11'],
    ['IPv4 before an IPv6 address listed first', ['2001:db8::10', '192.0.2.10'], '192.0.2.10'],
    [
      'the first IPv6 address when there is no IPv4 one',
      ['2001:db8::2', '2001:db8::1'],
      '2001:db8::2',
    ],
    ['null when nothing was resolved', [], null],
  ])('%s', (_name, addresses, expected) => {
    expect(pinnedAddress(addresses)).toBe(expected);
  });
});
