import { type RandomBytes, randomBase62 } from '../api-keys/raw-key.js';

/** Random characters after `whsec_`: 32 base62 characters are about 190 bits. */
export const WEBHOOK_SECRET_RANDOM_LENGTH = 32;

/**
 * A signing secret for webhooks and scan callbacks, shape `whsec_<random>` (specification,
 * Webhook). The HMAC key is the whole string as UTF-8, prefix included (decisions.md).
 */
export function generateWebhookSecret(randomBytes: RandomBytes): string {
  return `whsec_${randomBase62(WEBHOOK_SECRET_RANDOM_LENGTH, randomBytes)}`;
}
