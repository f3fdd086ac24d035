/**
 * The Standard Webhooks signature (https://www.standardwebhooks.com, "Signature scheme"), sent
 * beside the contract's `X-Webhook-Signature` so receivers built on the Standard Webhooks
 * libraries (`standardwebhooks` on npm, Svix) verify our deliveries with the webhook's secret as
 * it is:
 *
 * - `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`;
 * - the HMAC key is the base64 decoding of the secret's part after `whsec_`, which is how those
 *   libraries read a `whsec_` secret. Our secrets are `whsec_` and 32 base62 characters
 *   (webhook-secret.ts): base62 is a subset of the base64 alphabet and 32 characters are whole
 *   base64 quanta, so the part decodes, without padding, to 24 bytes (the specification's
 *   minimum). The contract's scheme keys the HMAC with the whole string instead (signature.ts):
 *   one secret, two keys, both derived from what the receiver was given.
 */
import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** The HMAC key of the Standard Webhooks scheme: base64 of the secret after `whsec_`. */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

/**
 * `v1,<base64>` over `<messageId>.<timestampSeconds>.<body>`, the body as its UTF-8 bytes (sign
 * the very string that is sent).
 *
 * @example signStandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
 *   'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')
 *   // 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='
 */
export function signStandardWebhook(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string,
): string {
  const digest = createHmac('sha256', standardWebhookKey(secret))
    .update(`${messageId}.${timestampSeconds}.`, 'utf8')
    .update(body, 'utf8')
    .digest('base64');
  return `v1,${digest}`;
}
