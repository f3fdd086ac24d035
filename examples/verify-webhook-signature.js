// Verifies a Rampart webhook delivery (Node.js, no dependencies).
//   rawBody          the request body exactly as received, as a Buffer. Verify BEFORE parsing:
//                    re-serialised JSON is not byte-identical (in Express, use express.raw()).
//   signatureHeader  the X-Webhook-Signature header: "sha256=" and 64 lowercase hex characters.
//   secret           the webhook's whole secret, "whsec_" prefix included, as shown at creation.
// Returns true or false and never throws, whatever the header holds.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function verifyWebhookSignature(rawBody, signatureHeader, secret) {
  const secretOk = typeof secret === 'string' && secret !== ''; // an empty key would be forgeable
  if (!Buffer.isBuffer(rawBody) || typeof signatureHeader !== 'string' || !secretOk) {
    return false;
  }
  const digest = createHmac('sha256', secret).update(rawBody).digest('hex');
  const expected = Buffer.from(`sha256=${digest}`, 'utf8');
  const received = Buffer.from(signatureHeader, 'utf8');
  // timingSafeEqual throws unless both hold the same number of BYTES. Compare byte lengths, not
  // string lengths: one multi-byte character makes a 71-character header longer than 71 bytes.
  return received.length === expected.length && timingSafeEqual(received, expected);
}
