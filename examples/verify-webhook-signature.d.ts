/**
 * Types of the receiver snippet `verify-webhook-signature.js`, so TypeScript tests can import the
 * plain JavaScript file the README shows without `allowJs`.
 */

/**
 * Whether `signatureHeader` (`X-Webhook-Signature`) is the HMAC-SHA256 of `rawBody` keyed with
 * `secret`; compared in constant time, never throws.
 */
export declare function verifyWebhookSignature(
  rawBody: Buffer,
  signatureHeader: string | undefined,
  secret: string,
): boolean;
