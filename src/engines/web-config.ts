/**
 * The scan `config` of the web engines (sqlmap, wapiti; issue 21): request headers and cookies,
 * HTTP authentication, crawl and attack exclusions and the user agent. A closed schema like
 * `options` (an unknown key is INVALID_FIELD_VALUE); every name and value is held to what HTTP
 * allows in a header line, so none can carry CR, LF or NUL into a request, a file or an argument.
 * Header values, cookie values, `auth.password` and `auth.token` are credentials
 * (domain/secrets/secret-config.ts): masked in answers, sealed at rest.
 */
import { Type } from '@sinclair/typebox';

/** Why a credential was refused, without repeating it (an answer or a log must not carry it). */
const SECRET_REASON = (what: string) => `the value (not repeated here) is not ${what}`;

/** An HTTP token (RFC 9110 `tchar`): header and cookie names. */
const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]";

/** Header names the tools set themselves, or that would change how the request is framed. */
const RESERVED_HEADERS = ['host', 'content-length', 'transfer-encoding', 'connection', 'cookie'];

/** A header value: visible ASCII, spaces and tabs, no CR/LF/NUL, no leading or trailing blank. */
const HEADER_VALUE = '^[\\x21-\\x7E]([\\x20-\\x7E\\t]{0,4094}[\\x21-\\x7E])?$';

/** A cookie value (RFC 6265 `cookie-octet`): no blank, quote, comma, semicolon or backslash. */
const COOKIE_VALUE = '^[\\x21\\x23-\\x2B\\x2D-\\x3A\\x3C-\\x5B\\x5D-\\x7E]{1,4096}$';

/** An exclusion: a path (`/reset`, `/admin/*`) or an absolute http(s) URL, `*` any characters. */
const EXCLUDE = '^(https?://[\\x21-\\x7E]{1,2040}|/[\\x21-\\x7E]{0,2047})$';

/**
 * A closed object of names to values (TypeBox's `Record` leaves other keys open): a name that
 * does not match `name` is refused, not ignored.
 */
function closedRecord(
  name: string,
  value: string,
  options: { readonly maxProperties: number; readonly description: string },
  reason: string,
) {
  return Type.Unsafe<Record<string, string>>({
    type: 'object',
    patternProperties: { [name]: { type: 'string', pattern: value, 'x-reason': reason } },
    additionalProperties: false,
    ...options,
  });
}

export const webConfigSchema = Type.Object(
  {
    headers: Type.Optional(
      closedRecord(
        `^[A-Za-z0-9]${TOKEN}{0,63}$`,
        HEADER_VALUE,
        {
          maxProperties: 32,
          description:
            'Request headers, name to value, sent with every request (not Host, Content-Length, Transfer-Encoding, Connection or Cookie: use cookies). Values are credentials: shown as ********',
        },
        SECRET_REASON('a header value: one line of visible ASCII, at most 4096 characters'),
      ),
    ),
    cookies: Type.Optional(
      closedRecord(
        `^${TOKEN}{1,128}$`,
        COOKIE_VALUE,
        {
          maxProperties: 32,
          description:
            'Cookies, name to value, sent to the target with every request (a session cookie). Values are credentials: shown as ********',
        },
        SECRET_REASON(
          'a cookie value: 1 to 4096 visible ASCII characters without blank, quote, comma, semicolon or backslash',
        ),
      ),
    ),
    auth: Type.Optional(
      Type.Object(
        {
          type: Type.String({ enum: ['basic', 'bearer'], description: 'basic or bearer' }),
          username: Type.Optional(
            Type.String({
              pattern: '^[\\x20-\\x39\\x3B-\\x7E]{1,256}$',
              description: 'basic: the user name (no colon)',
            }),
          ),
          password: Type.Optional(
            Type.String({
              pattern: '^[\\x20-\\x7E]{1,1024}$',
              description: 'basic: the password (shown as ********)',
              'x-reason': SECRET_REASON('a password of 1 to 1024 printable ASCII characters'),
            }),
          ),
          token: Type.Optional(
            Type.String({
              pattern: '^([A-Za-z0-9._~+/-]{1,4096}=*|\\*{8})$',
              description: 'bearer: the token (shown as ********)',
              'x-reason': SECRET_REASON('a bearer token (RFC 6750 b64token)'),
            }),
          ),
        },
        {
          additionalProperties: false,
          description: 'HTTP authentication: basic {username, password} or bearer {token}',
        },
      ),
    ),
    exclude: Type.Optional(
      Type.Array(Type.String({ pattern: EXCLUDE }), {
        maxItems: 50,
        description:
          'URLs the crawler and the attacks leave alone: a path on the target (/reset) or an absolute URL; * matches any characters, and the pattern must match the whole URL (/reset* for /reset?x=1 too)',
      }),
    ),
    userAgent: Type.Optional(
      Type.String({
        pattern: '^[\\x21-\\x7E]([\\x20-\\x7E]{0,510}[\\x21-\\x7E])?$',
        description: 'The User-Agent header',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * The schema with only some of its sections, closed the same way: for a tool that has no use
 * for the others (nuclei crawls nothing, so it has no `exclude`).
 */
export function webConfigSchemaOf(
  sections: ReadonlyArray<keyof typeof webConfigSchema.properties>,
) {
  return Type.Object(
    Object.fromEntries(sections.map((name) => [name, webConfigSchema.properties[name]])),
    { additionalProperties: false },
  );
}

/**
 * The part of `config` an engine's config schema takes (sentinel hands each child the sections
 * it understands).
 */
export function configFor(
  schema: { readonly properties: Readonly<Record<string, unknown>> },
  config: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).filter(([key]) => key in schema.properties));
}

/** A web config after validation: every section present, empty when not given. */
export interface WebConfig {
  readonly headers: Readonly<Record<string, string>>;
  readonly cookies: Readonly<Record<string, string>>;
  readonly auth:
    | { readonly type: 'basic'; readonly username: string; readonly password: string }
    | { readonly type: 'bearer'; readonly token: string }
    | null;
  readonly exclude: readonly string[];
  readonly userAgent: string | null;
}

/**
 * What the schema cannot say: a reserved header name (any case), and an `auth` that does not
 * have exactly the fields of its type. As the field below `config` and the reason, or null.
 */
export function webConfigProblem(
  config: Readonly<Record<string, unknown>>,
): { readonly field: string; readonly reason: string } | null {
  const headers = (config.headers ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(headers)) {
    if (RESERVED_HEADERS.includes(name.toLowerCase())) {
      return {
        field: `headers.${name}`,
        reason: `${name} is set by the scanner itself${name.toLowerCase() === 'cookie' ? ': use config.cookies' : ''}`,
      };
    }
  }
  const auth = config.auth as Record<string, unknown> | undefined;
  if (auth !== undefined) {
    const wanted = auth.type === 'basic' ? ['username', 'password'] : ['token'];
    const extra = Object.keys(auth).find((key) => key !== 'type' && !wanted.includes(key));
    if (extra !== undefined) {
      return { field: `auth.${extra}`, reason: `${auth.type} authentication has no ${extra}` };
    }
    const missing = wanted.find((key) => auth[key] === undefined);
    if (missing !== undefined) {
      return { field: `auth.${missing}`, reason: `${auth.type} authentication needs ${missing}` };
    }
  }
  return null;
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) {
    return {};
  }
  return Object.fromEntries(
    Object.entries(value).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

/**
 * The typed view of a `config` that passed `webConfigSchema` and `webConfigProblem` (absent or
 * `{}`: nothing set). The checks only narrow `unknown`.
 */
export function webConfigOf(input: Readonly<Record<string, unknown>> | undefined): WebConfig {
  const config = input ?? {};
  const auth = (config.auth ?? null) as Record<string, unknown> | null;
  return {
    headers: stringRecord(config.headers),
    cookies: stringRecord(config.cookies),
    auth:
      auth === null
        ? null
        : auth.type === 'basic'
          ? { type: 'basic', username: String(auth.username), password: String(auth.password) }
          : { type: 'bearer', token: String(auth.token) },
    exclude: Array.isArray(config.exclude)
      ? config.exclude.filter((item): item is string => typeof item === 'string')
      : [],
    userAgent: typeof config.userAgent === 'string' ? config.userAgent : null,
  };
}

/**
 * An exclusion as an absolute URL on the target's origin (a path is put on the origin; a URL is
 * kept as it is).
 * @example excludedUrl('/reset*', 'http://app.test:8080/login') // 'http://app.test:8080/reset*'
 */
export function excludedUrl(pattern: string, targetUrl: string): string {
  return pattern.startsWith('/') ? `${new URL(targetUrl).origin}${pattern}` : pattern;
}

/**
 * An exclusion as a regular expression over whole URLs (`*`: any characters, everything else
 * literal), for tools that take regular expressions (sqlmap's scope).
 */
export function excludedUrlRegex(pattern: string, targetUrl: string): string {
  return excludedUrl(pattern, targetUrl)
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
}
