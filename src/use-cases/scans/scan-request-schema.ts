/**
 * The body of POST /api/v1/scans as JSON Schema (TypeBox): the one place its types and limits
 * live. validate-scan-request.ts checks requests with it, and the route shows it in the OpenAPI
 * document; templates reuse its fields. The limits the contract leaves open are decisions:
 * `name` 1..255 characters, at most 50 tags of 1..100 characters, `assetId` 1..255 characters,
 * `config` at most 16 KiB of JSON, `timeout` 1..86400 seconds.
 *
 * Some fields are also checked by code that needs more than the schema, with the same answers:
 * the engine lookup (INVALID_SCAN_TYPE), the target grammar (INVALID_TARGET, parse-target.ts), the
 * template lookup (TEMPLATE_NOT_FOUND) and `callbackUrl` (HTTPS, no credentials, an absolute URL).
 */
import { type SchemaOptions, Type } from '@sinclair/typebox';
import { DEFAULT_PRIORITY, PRIORITIES } from '../../domain/scans/priority.js';
import { MAX_TARGET_LENGTH } from '../../domain/targets/parse-target.js';
import { orNull } from '../../domain/validation/or-null.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../../domain/webhooks/webhook-url.js';
import { ENGINE_NAMES } from '../../engines/engine.js';
import { variantPerEngine } from './options-by-engine.js';

export const MAX_TIMEOUT_SECONDS = 86_400;
export const MAX_NAME_LENGTH = 255;
const MAX_TAGS = 50;
export const MAX_TAG_LENGTH = 100;
export const MAX_ASSET_ID_LENGTH = 255;
const MAX_CONFIG_JSON_BYTES = 16 * 1024;

/** A string of 1 to `max` characters, with the reason these fields have always given. */
const boundedText = (max: number, options: SchemaOptions = {}) =>
  Type.String({
    minLength: 1,
    maxLength: max,
    'x-reason': `must be 1 to ${max} characters long`,
    ...options,
  });

/**
 * `config`: any object, at most 16 KiB written as JSON (scans and templates alike); an engine
 * with a config schema (engines/web-config.ts) then holds it to that schema.
 */
export const ConfigSchema = Type.Object(
  {},
  {
    additionalProperties: true,
    'x-max-json-bytes': MAX_CONFIG_JSON_BYTES,
    description:
      'Engine-specific configuration overrides. sqlmap, wapiti, ZAP, nuclei (without exclude), nikto (cookies, basic auth and userAgent only) and sentinel take a closed object (GET /api/v1/engines, configSchema): headers and cookies (name to value), auth ({type: basic, username, password} or {type: bearer, token}), exclude (paths or URLs, * any characters, matched against the whole URL) and userAgent; sentinel hands each of those children the sections it takes. Header values, cookie values, auth.password and auth.token are shown as ******** and stored encrypted; sending ******** back keeps the stored value. Other engines store it as given.',
  },
);

export const ScanTypeSchema = Type.String({
  enum: [...ENGINE_NAMES],
  'x-error-code': 'INVALID_SCAN_TYPE',
});

export const PrioritySchema = Type.String({
  enum: [...PRIORITIES],
  'x-error-code': 'INVALID_PRIORITY',
});

export const OptionsSchema = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      "Engine options (see GET /api/v1/engines for each engine's schema). Credentials (password, headerValue, cookieValue) are stored encrypted and shown as ********; sending ******** back keeps the stored value (a template's, on PATCH or when a scan starts from it)",
  },
);

export const TagsSchema = Type.Array(boundedText(MAX_TAG_LENGTH), { maxItems: MAX_TAGS });

export const TimeoutSchema = Type.Integer({
  minimum: 1,
  maximum: MAX_TIMEOUT_SECONDS,
  'x-reason': `<value> is not between 1 and ${MAX_TIMEOUT_SECONDS} seconds`,
});

// The order of the fields is the order their errors are reported in, after the rank.
const scanRequestFields = {
  templateId: Type.Optional(
    orNull(
      Type.String({
        format: 'uuid',
        'x-error-code': 'TEMPLATE_NOT_FOUND',
        description:
          "Start from a template: each top-level field given here replaces the template's; options are merged key by key",
      }),
    ),
  ),
  target: Type.String({
    maxLength: MAX_TARGET_LENGTH,
    'x-error-code': 'INVALID_TARGET',
    description: 'URL, host, domain, IP or CIDR',
  }),
  scanType: ScanTypeSchema,
  name: Type.Optional(
    orNull(boundedText(MAX_NAME_LENGTH, { description: 'Default: "<scanType> <target>"' })),
  ),
  targetType: Type.Optional(
    orNull(
      Type.String({
        enum: ['host', 'url', 'domain', 'ip', 'network', 'image'],
        description: 'Inferred from the target when omitted; image only for trivy',
      }),
    ),
  ),
  priority: Type.Optional(orNull(PrioritySchema, { default: DEFAULT_PRIORITY })),
  options: Type.Optional(orNull(OptionsSchema)),
  tags: Type.Optional(orNull(TagsSchema)),
  timeout: Type.Optional(orNull(TimeoutSchema, { description: 'Seconds; default per engine' })),
  assetId: Type.Optional(
    orNull(
      boundedText(MAX_ASSET_ID_LENGTH, {
        description:
          "An asset of the tenant (GET /api/v1/assets) that covers the target, else 400 INVALID_ASSET_ID. Omitted: the scan is linked to the narrowest covering asset, if any, and the scan's assetId shows it",
      }),
    ),
  ),
  config: Type.Optional(orNull(ConfigSchema)),
  callbackUrl: Type.Optional(
    orNull(
      Type.String({
        maxLength: MAX_WEBHOOK_URL_LENGTH,
        'x-error-code': 'INVALID_WEBHOOK_URL',
        description: 'Absolute HTTPS URL without credentials, for a one-off completion callback',
      }),
    ),
  ),
};

/** What validate-scan-request.ts checks: the body after a template filled it in. */
export const ScanRequestSchema = Type.Object(scanRequestFields);

/** The body as sent: `scanType` may come from the template. */
export const CreateScanBody = Type.Object({
  ...scanRequestFields,
  scanType: Type.Optional(
    orNull(ScanTypeSchema, { description: 'Required unless templateId gives it' }),
  ),
});

/**
 * The body as the OpenAPI document shows it (options-by-engine.ts): one variant per engine with
 * that engine's options, or, with a templateId and no scanType, the template's engine.
 */
export const CreateScanBodyByEngine = variantPerEngine(scanRequestFields, {
  fields: {
    ...scanRequestFields,
    templateId: Type.String({
      format: 'uuid',
      description: scanRequestFields.templateId.description,
    }),
    scanType: Type.Optional(Type.Null()),
  },
  description:
    "Starts from a template with the template's scanType; options are that engine's (checked when the scan is created)",
});
