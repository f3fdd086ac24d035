import { randomBytes } from 'node:crypto';
import { loadOrCreateSecretFile } from '../data-dir/secret-file.js';

/**
 * The HS256 secret when JWT_SECRET is unset: generated once into `<DATA_DIR>/jwt-secret` and read
 * back on every later start, so tokens survive restarts and the CLI signs with it.
 */
export function loadOrCreateJwtSecret(dataDir: string): Promise<string> {
  return loadOrCreateSecretFile(dataDir, {
    file: 'jwt-secret',
    what: 'the JWT secret',
    generate: () => randomBytes(48).toString('base64url'),
  });
}
