/**
 * Credentials of engine options at rest: sealed when a scan or template is stored, opened only by
 * the worker that hands them to the scanner, resealed with the current key at start-up (clear
 * text stored before encryption existed, or sealed with SECRETS_KEY_PREVIOUS).
 */

import { keepMaskedConfigSecrets, mapSecretConfig } from '../../domain/secrets/secret-config.js';
import {
  type KeptSecrets,
  keepMaskedSecrets,
  mapSecretOptions,
} from '../../domain/secrets/secret-options.js';
import type { SecretBox } from '../ports/secrets.js';

/**
 * The options to store for `tenantId` when `sent` replaces `stored`: a credential sent as
 * `********` keeps the stored (sealed) one, any other is sealed now.
 */
export function optionsToStore(
  box: SecretBox,
  tenantId: string,
  sent: Record<string, unknown>,
  stored: Readonly<Record<string, unknown>>,
): KeptSecrets {
  return keepMaskedSecrets(sent, stored, (secret) => box.seal(secret, tenantId));
}

/** The options with every credential in clear, for the scanner; throws SecretUnreadableError. */
export function openedOptions<T>(box: SecretBox, tenantId: string, options: T): T {
  return mapSecretOptions(options, (secret) =>
    box.isSealed(secret) ? box.open(secret, tenantId) : secret,
  );
}

/**
 * The options with every credential sealed with the current key: clear text is sealed, a value
 * sealed with a previous key is opened and sealed again. Throws SecretUnreadableError for a value
 * no configured key opens.
 */
export function resealedOptions<T>(box: SecretBox, tenantId: string, options: T): T {
  return mapSecretOptions(options, (secret) => {
    if (!box.isSealed(secret)) {
      return box.seal(secret, tenantId);
    }
    return box.isCurrent(secret) ? secret : box.seal(box.open(secret, tenantId), tenantId);
  });
}

/** The `config` to store (secret-config.ts): like `optionsToStore`, fields named `config.…`. */
export function configToStore(
  box: SecretBox,
  tenantId: string,
  sent: Record<string, unknown>,
  stored: Readonly<Record<string, unknown>>,
): KeptSecrets {
  return keepMaskedConfigSecrets(sent, stored, (secret) => box.seal(secret, tenantId));
}

/** The `config` with every credential in clear, for the scanner; throws SecretUnreadableError. */
export function openedConfig<T>(box: SecretBox, tenantId: string, config: T): T {
  return mapSecretConfig(config, (secret) =>
    box.isSealed(secret) ? box.open(secret, tenantId) : secret,
  );
}

/** The `config` with every credential sealed with the current key (see `resealedOptions`). */
export function resealedConfig<T>(box: SecretBox, tenantId: string, config: T): T {
  return mapSecretConfig(config, (secret) => {
    if (!box.isSealed(secret)) {
      return box.seal(secret, tenantId);
    }
    return box.isCurrent(secret) ? secret : box.seal(box.open(secret, tenantId), tenantId);
  });
}
