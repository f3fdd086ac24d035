import { randomBytes } from 'node:crypto';
import { loadOrCreateSecretFile } from '../data-dir/secret-file.js';
import { SECRETS_KEY_BYTES } from './secret-box.js';

/**
 * The at-rest key of credentials when SECRETS_KEY is unset: 32 random bytes generated once into
 * `<DATA_DIR>/secrets-key` (base64, mode 0600, the JWT secret's mechanism) and read back on every
 * later start, so a fresh machine's `npm start` works and what it sealed still opens after a
 * restart.
 */
export async function loadOrCreateSecretsKey(dataDir: string): Promise<Buffer> {
  const text = await loadOrCreateSecretFile(dataDir, {
    file: 'secrets-key',
    what: 'the secrets key',
    generate: () => randomBytes(SECRETS_KEY_BYTES).toString('base64'),
  });
  const key = Buffer.from(text, 'base64');
  if (key.length !== SECRETS_KEY_BYTES || key.toString('base64') !== text) {
    throw new Error(
      `the secrets key file ${dataDir}/secrets-key does not hold ${SECRETS_KEY_BYTES} bytes in base64`,
    );
  }
  return key;
}
