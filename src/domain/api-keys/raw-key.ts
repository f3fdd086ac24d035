/**
 * Raw API keys: `<prefix>_sk_` followed by 40 base62 characters. Only the SHA-256 of the whole raw
 * key is stored and looked up, so request handling never compares secrets character by character.
 */
import { createHash } from 'node:crypto';

export const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_RANDOM_LENGTH = 40;
/** Random characters shown after `<prefix>_sk_` in `keyPrefix`. */
const DISPLAY_RANDOM_CHARS = 6;
/** 62 × 4: bytes at or above it are rejected so that every character is equally likely. */
const UNBIASED_BYTE_LIMIT = 248;

export type RandomBytes = (size: number) => Uint8Array;

/**
 * Generates a raw key without modulo bias (rejection sampling: a byte ≥ 248 is drawn again).
 * @example generateRawKey('rmp', crypto.randomBytes) // 'rmp_sk_' + 40 base62 characters
 */
export function generateRawKey(prefix: string, randomBytes: RandomBytes): string {
  return `${prefix}_sk_${randomBase62(KEY_RANDOM_LENGTH, randomBytes)}`;
}

/** `length` base62 characters, every one equally likely (a byte ≥ 248 is drawn again). */
export function randomBase62(length: number, randomBytes: RandomBytes): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(64)) {
      if (byte < UNBIASED_BYTE_LIMIT && out.length < length) {
        out += KEY_ALPHABET[byte % 62];
      }
    }
  }
  return out;
}

/** Whether `raw` has the exact shape of a key of this deployment (no whitespace, no padding). */
export function isWellFormedRawKey(raw: string, prefix: string): boolean {
  const head = `${prefix}_sk_`;
  return (
    raw.length === head.length + KEY_RANDOM_LENGTH &&
    raw.startsWith(head) &&
    /^[A-Za-z0-9]+$/.test(raw.slice(head.length))
  );
}

/** Whether a string looks like an API key of any prefix (used to ignore keys sent as Bearer). */
export function looksLikeRawKey(value: string): boolean {
  return /^[a-z][a-z0-9]*_sk_/.test(value);
}

/** Hex SHA-256 of the raw key: the only form in which a key is stored. */
export function hashRawKey(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

/** The leading portion of a key that is safe to display, e.g. `rmp_sk_a1B2c3`. */
export function displayPrefix(raw: string, prefix: string): string {
  return raw.slice(0, `${prefix}_sk_`.length + DISPLAY_RANDOM_CHARS);
}
