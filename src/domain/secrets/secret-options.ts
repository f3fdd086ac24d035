/**
 * Credentials inside engine options (ZAP's `authentication.password`, `headerValue`,
 * `cookieValue`), wherever they sit in the options tree: the one list of which keys hold them, and
 * the pure walks over them. Scans and templates show them as `********`; a body that sends
 * `********` back at the same place keeps the stored value (a PATCH of a template, or a scan that
 * starts from one); at rest they are sealed (use-cases/ports/secrets.ts).
 */

/** Option keys, anywhere in the options tree, whose string values are credentials. */
export const SECRET_OPTION_KEYS: ReadonlySet<string> = new Set([
  'password',
  'headerValue',
  'cookieValue',
]);

/** What a credential is shown as, and what, sent back, means "keep the stored one". */
export const SECRET_MASK = '********';

export type Path = readonly string[];

/** A walk over the credentials of a tree (options, or a scan's `config`): `mapSecretOptions`. */
export type SecretWalk = <T>(value: T, replace: (secret: string, path: Path) => string) => T;

/**
 * `value` with every credential string replaced by `replace(secret, path)` (path: the keys from
 * the options' root, `['authentication', 'password']`); everything else is copied unchanged.
 */
export function mapSecretOptions<T>(
  value: T,
  replace: (secret: string, path: Path) => string,
  path: Path = [],
): T {
  if (Array.isArray(value)) {
    return value.map((item, index) =>
      mapSecretOptions(item, replace, [...path, String(index)]),
    ) as T;
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        SECRET_OPTION_KEYS.has(key) && typeof inner === 'string'
          ? replace(inner, [...path, key])
          : mapSecretOptions(inner, replace, [...path, key]),
      ]),
    ) as T;
  }
  return value;
}

/** Options as the API shows them: every credential is `********`. */
export function maskSecretOptions<T>(options: T): T {
  return mapSecretOptions(options, () => SECRET_MASK);
}

/** Every credential string of `options`, in tree order. */
export function secretOptionValues(options: unknown): string[] {
  const found: string[] = [];
  mapSecretOptions(options, (secret) => {
    found.push(secret);
    return secret;
  });
  return found;
}

function at(value: unknown, path: Path): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) {
      return undefined;
    }
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

export type KeptSecrets =
  | { readonly ok: true; readonly options: Record<string, unknown> }
  /** `field`: the dotted path (`options.authentication.password`) of a mask with nothing stored. */
  | { readonly ok: false; readonly field: string };

/**
 * The options to store when `sent` replaces `stored`: each credential sent as `********` is the
 * stored value at the same place; any other credential is `fresh(value)` (sealing it). A mask
 * where nothing is stored is refused with its field.
 * @example keepMaskedSecrets({ a: { password: '********' } }, { a: { password: 'x' } }, f)
 *   // { ok: true, options: { a: { password: 'x' } } }
 */
export function keepMaskedSecrets(
  sent: Record<string, unknown>,
  stored: Record<string, unknown>,
  fresh: (secret: string) => string,
  walk: SecretWalk = mapSecretOptions,
  root = 'options',
): KeptSecrets {
  const missing: string[] = [];
  const options = walk(sent, (secret, path) => {
    if (secret !== SECRET_MASK) {
      return fresh(secret);
    }
    const kept = at(stored, path);
    if (typeof kept !== 'string') {
      missing.push([root, ...path].join('.'));
      return secret;
    }
    return kept;
  });
  const [field] = missing;
  return field === undefined ? { ok: true, options } : { ok: false, field };
}
