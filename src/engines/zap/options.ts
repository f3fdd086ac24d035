import { Type } from '@sinclair/typebox';

/**
 * ZAP options (specification, "Engine options"). None of them reaches ZAP's command line: they
 * all go into the Automation Framework plan (`plan.ts`), a YAML file written into the scan's
 * workspace with mode 0600. Every string is still held to a strict pattern, because the plan is
 * YAML that ZAP reads with SnakeYAML and then runs through its own `${NAME}` variable
 * substitution (environment variables and plan vars, no escape syntax): `${` is refused in every
 * string, so a value can neither pull the worker's environment into a request nor be changed by
 * ZAP on the way.
 */

/** The scan policies of the specification, lightest first. */
export const ZAP_SCAN_POLICIES = ['light', 'standard', 'full'] as const;
export type ZapScanPolicy = (typeof ZAP_SCAN_POLICIES)[number];

export const ZAP_AUTHENTICATION_TYPES = ['form', 'header', 'cookie'] as const;
export type ZapAuthenticationType = (typeof ZAP_AUTHENTICATION_TYPES)[number];

/** The specification's defaults; the schema and `zapOptionsWithDefaults` both read them here. */
const DEFAULTS = {
  scanPolicy: 'standard',
  spiderMaxDepth: 3,
  ajaxSpider: false,
  activeScan: true,
} as const satisfies Partial<ZapOptions>;

/** No `${` anywhere (ZAP variable substitution), as a lookahead in front of a pattern. */
const NO_ZAP_VARIABLE = '(?!.*\\$\\{)';

/** Control characters (C0, DEL, C1) and the Unicode line and paragraph separators. */
const CONTROL = '\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029';

/**
 * A regular expression over URLs (Java syntax, ZAP matches it against whole URLs). URLs hold no
 * whitespace, so none is allowed; otherwise any printable text, since regexes need `\ ^ $ ( ) | *`.
 */
const UrlRegex = Type.String({
  minLength: 1,
  maxLength: 512,
  pattern: `^${NO_ZAP_VARIABLE}[^\\s${CONTROL}]{1,512}$`,
});

const UrlRegexes = (description: string) =>
  Type.Array(UrlRegex, { maxItems: 100, default: [], description });

/** A secret or user name: printable text including spaces, no control characters, no `${`. */
const Credential = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: `^${NO_ZAP_VARIABLE}[^${CONTROL}]{1,255}$`,
});

/** A form field name (`username`, `user[login]`); URL-encoded into the login request body. */
const FormFieldName = Type.String({ pattern: '^[A-Za-z0-9_.:\\[\\]-]{1,128}$' });

/** Case-insensitive alternative for one word, for the header deny list. */
function anyCase(word: string): string {
  return [...word]
    .map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c))
    .join('');
}

/**
 * Headers that would change where or how requests travel instead of who sends them: refused as
 * the authentication header (`Cookie` has its own type).
 */
const FORBIDDEN_HEADERS = ['host', 'content-length', 'transfer-encoding', 'connection'];

/** An HTTP header name (RFC 9110 token, letters, digits and `-` here), not a forbidden one. */
const HeaderName = Type.String({
  pattern: `^(?!(${FORBIDDEN_HEADERS.map(anyCase).join('|')})$)[A-Za-z0-9-]{1,128}$`,
});

/** A header value: visible ASCII and spaces only (no CR/LF, so no second header). */
const HeaderValue = Type.String({
  minLength: 1,
  maxLength: 4096,
  pattern: `^${NO_ZAP_VARIABLE}[\\x20-\\x7e]{1,4096}$`,
});

/** A cookie name (RFC 6265 token, narrowed). */
const CookieName = Type.String({ pattern: '^[A-Za-z0-9_.-]{1,128}$' });

/** A cookie value: RFC 6265 cookie-octets (no space, `"`, `,`, `;` or `\`). */
const CookieValue = Type.String({
  minLength: 1,
  maxLength: 4096,
  pattern: `^${NO_ZAP_VARIABLE}[\\x21\\x23-\\x2b\\x2d-\\x3a\\x3c-\\x5b\\x5d-\\x7e]{1,4096}$`,
});

/** An absolute http(s) URL without whitespace, quotes, braces or backslashes. */
const LoginUrl = Type.String({
  format: 'uri',
  maxLength: 2048,
  pattern: '^https?://[^\\s"<>\\\\^`{|}\\x00-\\x1f\\x7f]{1,2040}$',
});

/** ZAP options (specification, "Engine options"). */
export const zapOptionsSchema = Type.Object(
  {
    scanPolicy: Type.Optional(
      Type.String({ enum: [...ZAP_SCAN_POLICIES], default: DEFAULTS.scanPolicy }),
    ),
    // ZAP reads a spider depth of 0 as "unlimited", so the smallest depth is 1.
    spiderMaxDepth: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10, default: DEFAULTS.spiderMaxDepth }),
    ),
    ajaxSpider: Type.Optional(Type.Boolean({ default: DEFAULTS.ajaxSpider })),
    activeScan: Type.Optional(Type.Boolean({ default: DEFAULTS.activeScan })),
    contextInclude: Type.Optional(
      UrlRegexes('Regex URL patterns in scope (Java syntax); only URLs of the target origin'),
    ),
    contextExclude: Type.Optional(UrlRegexes('Regex URL patterns out of scope (Java syntax)')),
    authentication: Type.Optional(
      Type.Object(
        {
          type: Type.String({ enum: [...ZAP_AUTHENTICATION_TYPES] }),
          loginUrl: Type.Optional(LoginUrl),
          usernameField: Type.Optional(FormFieldName),
          passwordField: Type.Optional(FormFieldName),
          username: Type.Optional(Credential),
          password: Type.Optional(Credential),
          headerName: Type.Optional(HeaderName),
          headerValue: Type.Optional(HeaderValue),
          cookieName: Type.Optional(CookieName),
          cookieValue: Type.Optional(CookieValue),
        },
        {
          additionalProperties: false,
          description:
            'Form (loginUrl, usernameField, passwordField, username, password), header ' +
            '(headerName, headerValue) or cookie (cookieName, cookieValue) authentication',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

/** Form login: ZAP posts the two fields to `loginUrl` and keeps the session it gets back. */
export interface ZapFormAuthentication {
  readonly type: 'form';
  readonly loginUrl: string;
  readonly usernameField: string;
  readonly passwordField: string;
  readonly username: string;
  readonly password: string;
}

/** A header sent with every request to the target (an API token, `Authorization: Bearer …`). */
export interface ZapHeaderAuthentication {
  readonly type: 'header';
  readonly headerName: string;
  readonly headerValue: string;
}

/** A session cookie sent with every request to the target. */
export interface ZapCookieAuthentication {
  readonly type: 'cookie';
  readonly cookieName: string;
  readonly cookieValue: string;
}

export type ZapAuthentication =
  | ZapFormAuthentication
  | ZapHeaderAuthentication
  | ZapCookieAuthentication;

/** ZAP options with every default applied: what the plan builder takes. */
export interface ZapOptions {
  readonly scanPolicy: ZapScanPolicy;
  readonly spiderMaxDepth: number;
  readonly ajaxSpider: boolean;
  readonly activeScan: boolean;
  readonly contextInclude: readonly string[];
  readonly contextExclude: readonly string[];
  /**
   * The authentication as given, or null for none. The schema keeps every field optional (one
   * object for three types), so a given object can lack what its type needs: `zapOptionProblems`
   * says what is missing, and the plan builder refuses to run such a scan.
   */
  readonly authentication: ZapAuthenticationInput | null;
}

/** The authentication object as the schema lets it through (all fields but `type` optional). */
export interface ZapAuthenticationInput {
  readonly type: ZapAuthenticationType;
  readonly loginUrl?: string;
  readonly usernameField?: string;
  readonly passwordField?: string;
  readonly username?: string;
  readonly password?: string;
  readonly headerName?: string;
  readonly headerValue?: string;
  readonly cookieName?: string;
  readonly cookieValue?: string;
}

/** The fields each authentication type needs. */
const REQUIRED_FIELDS: {
  readonly [T in ZapAuthenticationType]: ReadonlyArray<keyof ZapAuthenticationInput>;
} = {
  form: ['loginUrl', 'usernameField', 'passwordField', 'username', 'password'],
  header: ['headerName', 'headerValue'],
  cookie: ['cookieName', 'cookieValue'],
};

function isScanPolicy(value: unknown): value is ZapScanPolicy {
  return typeof value === 'string' && (ZAP_SCAN_POLICIES as readonly string[]).includes(value);
}

function isAuthenticationType(value: unknown): value is ZapAuthenticationType {
  return (
    typeof value === 'string' && (ZAP_AUTHENTICATION_TYPES as readonly string[]).includes(value)
  );
}

function booleanOr(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}

function authenticationInput(value: unknown): ZapAuthenticationInput | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return null;
  }
  const record = value as Record<string, unknown>;
  if (!isAuthenticationType(record.type)) {
    return null;
  }
  const fields: Record<string, string> = {};
  for (const [key, field] of Object.entries(record)) {
    if (key !== 'type' && typeof field === 'string') {
      fields[key] = field;
    }
  }
  return { ...fields, type: record.type };
}

/**
 * Typed ZAP options from an `options` object that already passed `zapOptionsSchema`; absent
 * fields get the specification's defaults. The type checks only narrow `unknown`: they do not
 * replace validation.
 * @example zapOptionsWithDefaults({ ajaxSpider: true }).scanPolicy // 'standard'
 */
export function zapOptionsWithDefaults(input: Record<string, unknown>): ZapOptions {
  return {
    scanPolicy: isScanPolicy(input.scanPolicy) ? input.scanPolicy : DEFAULTS.scanPolicy,
    spiderMaxDepth:
      typeof input.spiderMaxDepth === 'number' ? input.spiderMaxDepth : DEFAULTS.spiderMaxDepth,
    ajaxSpider: booleanOr(input.ajaxSpider, DEFAULTS.ajaxSpider),
    activeScan: booleanOr(input.activeScan, DEFAULTS.activeScan),
    contextInclude: strings(input.contextInclude),
    contextExclude: strings(input.contextExclude),
    authentication: authenticationInput(input.authentication),
  };
}

/**
 * The complete authentication of its type, or the names of the fields it lacks.
 * @example completeAuthentication({ type: 'header', headerName: 'X-Key' }) // { missing: ['headerValue'] }
 */
export function completeAuthentication(
  input: ZapAuthenticationInput,
): { readonly authentication: ZapAuthentication } | { readonly missing: readonly string[] } {
  const missing = REQUIRED_FIELDS[input.type].filter((field) => input[field] === undefined);
  if (missing.length > 0) {
    return { missing };
  }
  // Every field the type needs is a string (checked above).
  const field = (name: keyof ZapAuthenticationInput): string => String(input[name]);
  switch (input.type) {
    case 'form':
      return {
        authentication: {
          type: 'form',
          loginUrl: field('loginUrl'),
          usernameField: field('usernameField'),
          passwordField: field('passwordField'),
          username: field('username'),
          password: field('password'),
        },
      };
    case 'header':
      return {
        authentication: {
          type: 'header',
          headerName: field('headerName'),
          headerValue: field('headerValue'),
        },
      };
    case 'cookie':
      return {
        authentication: {
          type: 'cookie',
          cookieName: field('cookieName'),
          cookieValue: field('cookieValue'),
        },
      };
  }
}
