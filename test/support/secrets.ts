/**
 * The at-rest key of credentials in tests: one fixed SECRETS_KEY (32 bytes, base64) that the test
 * harness, spawned service processes and workers built by tests share, so what one seals another
 * opens, and no test writes a generated key into the repository's ./data.
 */
import { createSecretBox } from '../../src/adapters/secrets/secret-box.js';
import type { SecretBox } from '../../src/use-cases/ports/secrets.js';

export const TEST_SECRETS_KEY = Buffer.alloc(32, 0x5e).toString('base64');

/** A SecretBox with TEST_SECRETS_KEY (and `previous` keys, for rotation tests). */
export function testSecretBox(previous: readonly Buffer[] = []): SecretBox {
  return createSecretBox(Buffer.from(TEST_SECRETS_KEY, 'base64'), previous);
}
