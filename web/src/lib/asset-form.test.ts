import { describe, expect, it } from 'vitest';
import { type Asset, tagsFrom, verificationOutcome } from './asset-form.js';

describe('tagsFrom', () => {
  it('splits on commas, trims, drops blanks and repeats', () => {
    expect(tagsFrom(' prod, web ,,prod, ')).toEqual(['prod', 'web']);
    expect(tagsFrom('')).toEqual([]);
  });
});

const base: Asset['verification'] = {
  status: 'unverified',
  method: null,
  verifiedAt: null,
  lastCheckedAt: null,
  lastError: null,
  token: 't',
  dns: null,
  http: null,
};

describe('verificationOutcome', () => {
  it('says verified, with the method', () => {
    expect(verificationOutcome({ ...base, status: 'verified', method: 'dns' })).toBe(
      'Verified (dns).',
    );
  });

  it('says why it is not verified, when a check said so', () => {
    expect(verificationOutcome(base)).toBe('Not verified yet.');
    expect(verificationOutcome({ ...base, lastError: 'no TXT record found' })).toBe(
      'Not verified: no TXT record found',
    );
  });
});
