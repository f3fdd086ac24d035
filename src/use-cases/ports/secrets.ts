/**
 * Credentials at rest: what seals a credential of engine options before it is stored and opens it
 * for the scanner when a worker runs the scan (adapters/secrets/secret-box.ts, AES-256-GCM with
 * SECRETS_KEY). A sealed value is a string of its own format; `context` (the tenant id) is bound
 * into it, so a value sealed for one tenant does not open for another.
 */
export interface SecretBox {
  /** `plain` sealed with the current key. */
  seal(plain: string, context: string): string;
  /** The plain text of a sealed value; throws SecretUnreadableError when it cannot be opened. */
  open(sealed: string, context: string): string;
  /** Whether `value` has the sealed format (not whether it opens). */
  isSealed(value: string): boolean;
  /** Whether `sealed` was sealed with the current key (false: a previous one, or unknown). */
  isCurrent(sealed: string): boolean;
}

/** A sealed value that no configured key opens (unknown key id, altered, another tenant's). */
export class SecretUnreadableError extends Error {
  constructor(reason: string) {
    super(`a stored credential cannot be decrypted: ${reason}`);
    this.name = 'SecretUnreadableError';
  }
}
