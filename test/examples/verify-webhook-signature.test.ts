/**
 * The receiver snippet the README shows verbatim (examples/verify-webhook-signature.js): it must
 * accept what Rampart signs and return false, never throw, for anything else (platform research
 * 5.1, items 3 and 4: `timingSafeEqual` throws on a byte-length mismatch and has crashed receivers).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../examples/verify-webhook-signature.js';
import { signWebhookBody } from '../../src/domain/webhooks/signature.js';

const SECRET = 'whsec_test';
const BODY = Buffer.from('{"event":"webhook.test"}');
const VECTOR_HEADER = 'sha256=e1202d2376daf8d5d43fdf1ebc2de3477727322835b6b57e43748d89454cb183';
const HEX = VECTOR_HEADER.slice('sha256='.length);

describe('verifyWebhookSignature (README snippet)', () => {
  it('accepts the test vector of decisions.md', () => {
    expect(verifyWebhookSignature(BODY, VECTOR_HEADER, SECRET)).toBe(true);
  });

  it("accepts what Rampart's signer produces for a multi-byte body, over the raw bytes", () => {
    const raw = Buffer.from('{"name":"Prüfung ✓ 🚀","note":"a\u2028b</script>"}', 'utf8');
    const header = signWebhookBody('whsec_abc', raw);
    expect(verifyWebhookSignature(raw, header, 'whsec_abc')).toBe(true);
    // Decoding the same bytes as latin1 and re-encoding them (what a framework with the wrong
    // charset does) changes the bytes, and the signature no longer matches.
    const mangled = Buffer.from(raw.toString('latin1'), 'utf8');
    expect(verifyWebhookSignature(mangled, header, 'whsec_abc')).toBe(false);
  });

  it('rejects another body, another secret and the secret without its prefix', () => {
    expect(verifyWebhookSignature(Buffer.from(`${BODY} `), VECTOR_HEADER, SECRET)).toBe(false);
    expect(verifyWebhookSignature(BODY, VECTOR_HEADER, 'whsec_other')).toBe(false);
    expect(verifyWebhookSignature(BODY, VECTOR_HEADER, 'test')).toBe(false);
  });

  const multiByte = `sha256=${HEX.slice(0, 63)}é`;

  it.each([
    ['a missing header', undefined],
    ['an empty header', ''],
    ['only the prefix', 'sha256='],
    ['the bare hex digest without prefix', HEX],
    ['another prefix', `sha1=${HEX}`],
    ['a prefix in capitals', `SHA256=${HEX}`],
    ['uppercase hex', `sha256=${HEX.toUpperCase()}`],
    ['one hex character short', VECTOR_HEADER.slice(0, -1)],
    ['one hex character more', `${VECTOR_HEADER}0`],
    ['a trailing space', `${VECTOR_HEADER} `],
    ['a wrong digest of the right length', `sha256=${'0'.repeat(64)}`],
    ['non-hex characters of the right length', `sha256=${'z'.repeat(64)}`],
    ['64 characters with one multi-byte character', multiByte],
    ['64 characters with one astral character (two UTF-16 units)', `sha256=${HEX.slice(0, 62)}🚀`],
    ['a lone surrogate', `sha256=${HEX.slice(0, 63)}\ud800`],
    ['a list of signatures', `${VECTOR_HEADER},${VECTOR_HEADER}`],
    ['a very long header', `sha256=${'a'.repeat(100_000)}`],
  ])('returns false, without throwing, for %s', (_, header) => {
    expect(() => verifyWebhookSignature(BODY, header, SECRET)).not.toThrow();
    expect(verifyWebhookSignature(BODY, header, SECRET)).toBe(false);
  });

  it('guards by byte length: the multi-byte case has the right character count', () => {
    expect(multiByte.length).toBe(VECTOR_HEADER.length);
    expect(Buffer.byteLength(multiByte)).toBeGreaterThan(VECTOR_HEADER.length);
  });

  it('returns false, without throwing, for a parsed body, a missing body or a missing secret', () => {
    const cases: Array<[unknown, unknown, unknown]> = [
      [JSON.parse(BODY.toString()), VECTOR_HEADER, SECRET],
      [BODY.toString(), VECTOR_HEADER, SECRET],
      [undefined, VECTOR_HEADER, SECRET],
      [BODY, VECTOR_HEADER, undefined],
      [BODY, VECTOR_HEADER, ''],
      [BODY, ['sha256=a', 'sha256=b'], SECRET],
    ];
    for (const [body, header, secret] of cases) {
      // The snippet is plain JavaScript: receivers call it with whatever their framework hands over.
      const call = () =>
        verifyWebhookSignature(body as Buffer, header as string | undefined, secret as string);
      expect(call).not.toThrow();
      expect(call()).toBe(false);
    }
  });

  it('does not accept a signature made with an empty key when the secret is empty', () => {
    const forged = `sha256=${createHmac('sha256', '').update(BODY).digest('hex')}`;
    expect(verifyWebhookSignature(BODY, forged, '')).toBe(false);
  });
});
