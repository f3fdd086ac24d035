import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhookBody } from './signature.js';

const VECTOR_HEADER = 'sha256=e1202d2376daf8d5d43fdf1ebc2de3477727322835b6b57e43748d89454cb183';

describe('signWebhookBody', () => {
  it('matches the test vector of decisions.md', () => {
    expect(signWebhookBody('whsec_test', '{"event":"webhook.test"}')).toBe(VECTOR_HEADER);
  });

  it('gives the same header for the body as a string and as its UTF-8 bytes', () => {
    const bytes = new TextEncoder().encode('{"event":"webhook.test"}');
    expect(signWebhookBody('whsec_test', bytes)).toBe(VECTOR_HEADER);
  });

  it('is sha256= and exactly 64 lowercase hex characters', () => {
    for (const body of ['', 'x', '{"a":1}'.repeat(1000)]) {
      expect(signWebhookBody('whsec_abc', body)).toMatch(/^sha256=[0-9a-f]{64}$/);
    }
  });

  it('keys the HMAC with the whole secret, whsec_ prefix included', () => {
    const body = '{"event":"webhook.test"}';
    const withoutPrefix = `sha256=${createHmac('sha256', 'test').update(body).digest('hex')}`;
    expect(signWebhookBody('test', body)).toBe(withoutPrefix);
    expect(signWebhookBody('whsec_test', body)).not.toBe(withoutPrefix);
  });

  const hmacHex = (key: string, data: Buffer) =>
    createHmac('sha256', key).update(data).digest('hex');

  it.each([
    ['a scan name with umlaut, check mark and emoji', '{"name":"Prüfung ✓ 🚀"}'],
    ['a line separator that JSON leaves unescaped', '{"name":"a\u2028b"}'],
  ])('signs %s over its UTF-8 bytes', (_, body) => {
    const bytes = Buffer.from(body, 'utf8');
    // The byte count differs from the UTF-16 length, so a signer hashing code units or latin1
    // would give another digest.
    expect(bytes.length).toBeGreaterThan(body.length);
    const expected = `sha256=${hmacHex('whsec_k', bytes)}`;
    expect(signWebhookBody('whsec_k', body)).toBe(expected);
    expect(signWebhookBody('whsec_k', new Uint8Array(bytes))).toBe(expected);
    expect(signWebhookBody('whsec_k', body)).not.toBe(
      `sha256=${hmacHex('whsec_k', Buffer.from(body, 'latin1'))}`,
    );
  });

  it('signs </script> as it is, with no HTML-safe escaping of the body', () => {
    const body = '{"name":"</script><script>alert(1)</script>"}';
    expect(signWebhookBody('whsec_k', body)).toBe(
      `sha256=${hmacHex('whsec_k', Buffer.from(body))}`,
    );
    expect(signWebhookBody('whsec_k', body)).not.toBe(
      signWebhookBody('whsec_k', body.replaceAll('/', '\\/')),
    );
  });

  it('changes with one byte of the body or of the secret', () => {
    const body = '{"event":"scan.completed"}';
    expect(signWebhookBody('whsec_a', body)).not.toBe(signWebhookBody('whsec_b', body));
    expect(signWebhookBody('whsec_a', body)).not.toBe(signWebhookBody('whsec_a', `${body} `));
  });

  it('signs a secret with non-ASCII characters over its UTF-8 bytes', () => {
    const expected = `sha256=${createHmac('sha256', Buffer.from('whsec_ü', 'utf8')).update('x').digest('hex')}`;
    expect(signWebhookBody('whsec_ü', 'x')).toBe(expected);
  });
});
