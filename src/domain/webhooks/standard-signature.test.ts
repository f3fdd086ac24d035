import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signStandardWebhook, standardWebhookKey } from './standard-signature.js';
import { generateWebhookSecret } from './webhook-secret.js';

// The example of the Standard Webhooks libraries' test suites (and Svix's documentation).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('signStandardWebhook', () => {
  it('matches the known vector, as the standardwebhooks library computes it', () => {
    const { secret, id, timestamp, body, signature } = VECTOR;
    expect(signStandardWebhook(secret, id, timestamp, body)).toBe(signature);
    expect(new Webhook(secret).sign(id, new Date(timestamp * 1000), body)).toBe(signature);
  });

  it('decodes our generated secrets to 24 bytes and signs as the library does with them', () => {
    for (let i = 0; i < 50; i += 1) {
      const secret = generateWebhookSecret(randomBytes);
      expect(standardWebhookKey(secret)).toHaveLength(24);
      const body = JSON.stringify({ event: 'scan.completed', n: i, name: 'Prüfung ✓ 🚀' });
      const id = `del-${i}`;
      const library = new Webhook(secret).sign(id, new Date(1_700_000_000_000 + i * 1000), body);
      expect(signStandardWebhook(secret, id, 1_700_000_000 + i, body)).toBe(library);
    }
  });

  it('is verified by the library within its tolerance and refused outside it', () => {
    const secret = generateWebhookSecret(randomBytes);
    const body = '{"event":"webhook.test"}';
    const now = Math.floor(Date.now() / 1000);
    const headers = (seconds: number) => ({
      'webhook-id': 'del-1',
      'webhook-timestamp': String(seconds),
      'webhook-signature': signStandardWebhook(secret, 'del-1', seconds, body),
    });
    expect(new Webhook(secret).verify(body, headers(now))).toEqual({ event: 'webhook.test' });
    expect(() => new Webhook(secret).verify(body, headers(now - 6 * 60))).toThrow(/too old/);
    expect(() => new Webhook(secret).verify(`${body} `, headers(now))).toThrow(/signature/);
    const other = generateWebhookSecret(randomBytes);
    expect(() => new Webhook(other).verify(body, headers(now))).toThrow(/signature/);
  });

  it('signs the body over its UTF-8 bytes and covers the id and the timestamp', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"name":"a\u2028b ✓"}';
    const base = signStandardWebhook(secret, 'del-a', 1, body);
    expect(base).toBe(new Webhook(secret).sign('del-a', new Date(1000), body));
    expect(signStandardWebhook(secret, 'del-b', 1, body)).not.toBe(base);
    expect(signStandardWebhook(secret, 'del-a', 2, body)).not.toBe(base);
    expect(base).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('keys with the base64 part only: the whsec_ prefix is not part of the key', () => {
    expect(standardWebhookKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toEqual(
      Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'),
    );
  });
});
