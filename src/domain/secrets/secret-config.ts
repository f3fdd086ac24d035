/**
 * Credentials inside a scan's (or template's) `config` (engines/web-config.ts): every value of
 * `headers` and of `cookies` (a session cookie, an `Authorization` or API-key header are
 * credentials, and a name alone does not tell which), and `auth.password` / `auth.token`. Shown
 * as `********`, kept when `********` is sent back at the same place, sealed at rest: the same
 * rules as the credentials of options (secret-options.ts).
 */
import { type KeptSecrets, keepMaskedSecrets, type Path, SECRET_MASK } from './secret-options.js';

/** Sections whose every string value is a credential. */
const SECRET_SECTIONS: ReadonlySet<string> = new Set(['headers', 'cookies']);
/** Keys of `auth` that hold a credential. */
const SECRET_AUTH_KEYS: ReadonlySet<string> = new Set(['password', 'token']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mapSection(
  section: string,
  value: unknown,
  replace: (secret: string, path: Path) => string,
): unknown {
  if (!isRecord(value)) {
    return value;
  }
  const secret = (key: string) =>
    SECRET_SECTIONS.has(section) || (section === 'auth' && SECRET_AUTH_KEYS.has(key));
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      secret(key) && typeof inner === 'string' ? replace(inner, [section, key]) : inner,
    ]),
  );
}

/** `config` with every credential string replaced by `replace(secret, path)`; the rest copied. */
export function mapSecretConfig<T>(config: T, replace: (secret: string, path: Path) => string): T {
  if (!isRecord(config)) {
    return config;
  }
  return Object.fromEntries(
    Object.entries(config).map(([section, value]) => [
      section,
      mapSection(section, value, replace),
    ]),
  ) as T;
}

/** `config` as the API shows it: every credential is `********`. */
export function maskSecretConfig<T>(config: T): T {
  return mapSecretConfig(config, () => SECRET_MASK);
}

/** Every credential string of `config`, in tree order (for tests and log checks). */
export function secretConfigValues(config: unknown): string[] {
  const found: string[] = [];
  mapSecretConfig(config, (secret) => {
    found.push(secret);
    return secret;
  });
  return found;
}

/**
 * The config to store when `sent` replaces `stored`: `********` keeps the stored credential at
 * the same place, any other credential is `fresh(value)`; a mask with nothing stored is refused
 * with its field (`config.cookies.session`).
 */
export function keepMaskedConfigSecrets(
  sent: Record<string, unknown>,
  stored: Record<string, unknown>,
  fresh: (secret: string) => string,
): KeptSecrets {
  return keepMaskedSecrets(sent, stored, fresh, mapSecretConfig, 'config');
}
