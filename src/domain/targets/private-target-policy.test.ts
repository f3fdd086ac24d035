import { describe, expect, it } from 'vitest';
import {
  allowedRangeError,
  allowsPrivateAddress,
  allowsPrivateNetwork,
  asCidr,
} from './private-target-policy.js';

describe('allowsPrivateAddress', () => {
  it.each([
    [false, '127.0.0.2', false],
    [true, '127.0.0.2', true],
    [['127.0.0.2/32'], '127.0.0.2', true],
    [['127.0.0.2/32'], '127.0.0.1', false],
    [['127.0.0.2/32'], '::ffff:127.0.0.2', true],
    [['10.20.0.0/16'], '10.20.255.1', true],
    [['10.20.0.0/16'], '10.21.0.1', false],
    [['fd00:1::/64'], 'fd00:1::5', true],
    [['fd00:1::/64'], '10.0.0.1', false],
    [['10.20.0.0/16', 'fd00:1::/64'], 'fd00:2::5', false],
  ] as const)('%j allows %s: %s', (policy, address, allowed) => {
    expect(allowsPrivateAddress(policy, address)).toBe(allowed);
  });

  it('allows nothing with an empty list', () => {
    expect(allowsPrivateAddress([], '10.0.0.1')).toBe(false);
  });
});

describe('allowsPrivateNetwork', () => {
  it.each([
    [false, '10.20.0.0/24', false],
    [true, '10.20.0.0/24', true],
    [['10.20.0.0/16'], '10.20.3.0/24', true],
    [['10.20.0.0/16'], '10.20.0.0/16', true],
    [['10.20.0.0/16'], '10.20.0.0/15', false],
    [['10.20.0.0/16'], '10.21.0.0/24', false],
    [['fd00:1::/64'], 'fd00:1::/112', true],
    [['fd00:1::/64'], '10.20.0.0/24', false],
    [['10.20.0.0/16'], 'not a range', false],
  ] as const)('%j allows all of %s: %s', (policy, cidr, allowed) => {
    expect(allowsPrivateNetwork(policy, cidr)).toBe(allowed);
  });
});

describe('allowed ranges', () => {
  it('accepts canonical addresses and ranges and says why others are refused', () => {
    expect(allowedRangeError('10.20.0.0/16')).toBeNull();
    expect(allowedRangeError('127.0.0.2')).toBeNull();
    expect(allowedRangeError('10.20.0.1/16')).toContain('host bits');
    expect(allowedRangeError('127.1')).toContain('not a canonical');
  });

  it('writes a single address as its full-length range', () => {
    expect(asCidr('127.0.0.2')).toBe('127.0.0.2/32');
    expect(asCidr('fd00::1')).toBe('fd00::1/128');
    expect(asCidr('10.0.0.0/8')).toBe('10.0.0.0/8');
  });
});
