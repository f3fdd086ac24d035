/**
 * The `X-Webhook-Signature` header of webhook deliveries and scan callbacks (specification, Events:
 * "HMAC-SHA256 of the raw request body, keyed with the webhook's secret, hex-encoded, and prefixed
 * with `sha256=`"). decisions.md fixes the key bytes: the whole secret string as UTF-8, `whsec_`
 * prefix included, so a receiver can pass the secret it was given straight to `createHmac`.
 */
import { createHmac } from 'node:crypto';

/**
 * Signs the exact bytes that will be sent. A string body is signed over its UTF-8 encoding, which
 * is what undici puts on the wire for a string body; callers must send the very string (or bytes)
 * they signed, never a re-serialisation of it.
 *
 * @example signWebhookBody('whsec_test', '{"event":"webhook.test"}')
 *   // 'sha256=e1202d2376daf8d5d43fdf1ebc2de3477727322835b6b57e43748d89454cb183'
 */
export function signWebhookBody(secret: string, body: string | Uint8Array): string {
  const digest = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest('hex');
  return `sha256=${digest}`;
}
