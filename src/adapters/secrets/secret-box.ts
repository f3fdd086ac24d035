/**
 * The SecretBox of the service: AES-256-GCM (node:crypto) with SECRETS_KEY. A sealed value is
 *
 *   rmpsec:v1:<key id>:<base64url of 12-byte IV | ciphertext | 16-byte tag>
 *
 * `v1` names this format (a later one can be read beside it); the key id is the first 8 hex
 * digits of SHA-256 over a fixed label and the key, so it names a key without revealing it, and
 * `open` finds the key among SECRETS_KEY and SECRETS_KEY_PREVIOUS by it (rotation). The version,
 * key id and context (the tenant id) are the additional authenticated data: a value moved to
 * another tenant's row, or given another key id, does not open. A fresh random IV per seal;
 * 2^32 seals per key stay far inside GCM's limit for random IVs.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { type SecretBox, SecretUnreadableError } from '../../use-cases/ports/secrets.js';

const FORMAT = 'rmpsec:v1';
const SEALED = /^rmpsec:v1:([0-9a-f]{8}):([A-Za-z0-9_-]{38,})$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const SECRETS_KEY_BYTES = 32;

/** The id a sealed value names its key by. */
export function secretsKeyId(key: Buffer): string {
  return createHash('sha256')
    .update('rampart secrets key id\0')
    .update(key)
    .digest('hex')
    .slice(0, 8);
}

const aad = (keyId: string, context: string) => Buffer.from(`${FORMAT}:${keyId}:${context}`);

/** A box sealing with `current` and opening with it or any of `previous`. */
export function createSecretBox(current: Buffer, previous: readonly Buffer[] = []): SecretBox {
  for (const key of [current, ...previous]) {
    if (key.length !== SECRETS_KEY_BYTES) {
      throw new Error(`a secrets key must be ${SECRETS_KEY_BYTES} bytes, got ${key.length}`);
    }
  }
  const currentId = secretsKeyId(current);
  const keys = new Map<string, Buffer>();
  for (const key of [...previous].reverse()) {
    keys.set(secretsKeyId(key), key);
  }
  keys.set(currentId, current);
  return {
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(currentId, context));
      const body = Buffer.concat([
        iv,
        cipher.update(plain, 'utf8'),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return `${FORMAT}:${currentId}:${body.toString('base64url')}`;
    },
    open(sealed, context) {
      const match = SEALED.exec(sealed);
      if (match === null) {
        throw new SecretUnreadableError('not a sealed value');
      }
      const [, keyId = '', encoded = ''] = match;
      const key = keys.get(keyId);
      if (key === undefined) {
        throw new SecretUnreadableError(
          `it was sealed with key ${keyId}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`,
        );
      }
      const body = Buffer.from(encoded, 'base64url');
      if (body.length < IV_BYTES + TAG_BYTES) {
        throw new SecretUnreadableError('the sealed value is truncated');
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, IV_BYTES), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(aad(keyId, context));
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
        return Buffer.concat([
          decipher.update(body.subarray(IV_BYTES, body.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new SecretUnreadableError(`it does not authenticate under key ${keyId}`);
      }
    },
    isSealed: (value) => SEALED.test(value),
    isCurrent: (sealed) => SEALED.exec(sealed)?.[1] === currentId,
  };
}
