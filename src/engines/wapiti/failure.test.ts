import { describe, expect, it } from 'vitest';
import { wapitiFailure } from './failure.js';

describe('wapitiFailure', () => {
  it('reads a crawl that found nothing (wapiti 3.0.4 against a closed port)', () => {
    expect(wapitiFailure('[*] Wapiti found 0 URLs and forms during the scan')).toMatch(
      /^the crawler found no URL or form to test/,
    );
  });

  it.each([
    '[*] Wapiti found 3 URLs and forms during the scan',
    '[*] Wapiti found 10 URLs and forms during the scan',
    '[*] Launching module xss',
    'Error downloading wapp database.',
    '',
  ])('is null for %j', (line) => {
    expect(wapitiFailure(line)).toBeNull();
  });
});
