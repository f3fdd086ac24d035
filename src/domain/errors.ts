/**
 * The error catalog: every code of the specification and of decisions.md, once, with its HTTP
 * status and message. `test/error-catalog.test.ts` checks it against both documents and against
 * the OpenAPI document, so a code cannot be added to one place and forgotten in another.
 */

interface CatalogEntry {
  readonly status: number;
  /** Message template; `<name>` placeholders are filled from the error's params. */
  readonly message: string;
}

export const ERROR_CATALOG = {
  // 400
  INVALID_JSON: { status: 400, message: 'Request body is not valid JSON' },
  MISSING_REQUIRED_FIELD: { status: 400, message: 'Missing required field: <field>' },
  INVALID_FIELD_TYPE: { status: 400, message: 'Field <field> must be of type <type>' },
  INVALID_FIELD_VALUE: { status: 400, message: 'Invalid value for field <field>: <reason>' },
  INVALID_SCAN_TYPE: { status: 400, message: 'Invalid scan type: <value>' },
  INVALID_TARGET: { status: 400, message: 'Invalid target: <reason>' },
  INVALID_PRIORITY: {
    status: 400,
    message: 'Invalid priority: <value> (expected critical, high, normal or low)',
  },
  INVALID_PAGE: { status: 400, message: 'Invalid page: must be an integer from 1 to 10000' },
  INVALID_LIMIT: { status: 400, message: 'Invalid limit: must be an integer from 1 to 100' },
  TEMPLATE_NAME_REQUIRED: { status: 400, message: 'Template name is required' },
  DUPLICATE_TEMPLATE_NAME: { status: 400, message: 'Template name already in use: <value>' },
  INVALID_WEBHOOK_URL: { status: 400, message: 'Invalid webhook URL: <reason>' },
  WEBHOOK_URL_UNREACHABLE: { status: 400, message: 'Webhook URL could not be reached: <reason>' },
  // Rampart extensions (README, "Error codes Rampart adds"): a scan's assetId (issue 24).
  INVALID_ASSET_ID: { status: 400, message: 'Invalid assetId: <reason>' },
  INVALID_WEBHOOK_EVENT: {
    status: 400,
    message:
      'Invalid webhook event: <value> (expected scan.completed, scan.failed, scan.started or scan.cancelled)',
  },
  // 401
  MISSING_API_KEY: {
    status: 401,
    message: 'Missing API key: send it in the X-API-Key header',
  },
  INVALID_API_KEY: { status: 401, message: 'Invalid API key' },
  KEY_EXPIRED: { status: 401, message: 'API key has expired' },
  KEY_REVOKED: { status: 401, message: 'API key has been revoked' },
  KEY_SUSPENDED: { status: 401, message: 'API key is suspended' },
  MISSING_AUTH_TOKEN: {
    status: 401,
    message: 'Missing bearer token: send Authorization: Bearer <JWT>',
  },
  INVALID_AUTH_TOKEN: { status: 401, message: 'Invalid bearer token: <reason>' },
  // 403
  INSUFFICIENT_SCOPE: { status: 403, message: 'Insufficient scope: requires <scope>' },
  SCAN_TYPE_NOT_ALLOWED: {
    status: 403,
    message: 'Scan type not allowed for this API key: <value>',
  },
  IP_NOT_ALLOWED: { status: 403, message: 'Source IP address is not allowed for this API key' },
  TENANT_SUSPENDED: { status: 403, message: 'Tenant account is suspended' },
  TARGET_NOT_ALLOWED: { status: 403, message: 'Target not allowed: <reason>' },
  ADMIN_REQUIRED: { status: 403, message: 'This operation requires an administrator token' },
  // A Rampart extension (README, "Error codes Rampart adds"): REQUIRE_VERIFIED_TARGETS.
  TARGET_NOT_VERIFIED: { status: 403, message: 'Target not verified: <reason>' },
  // 404
  NOT_FOUND: { status: 404, message: 'Route not found: <method> <path>' },
  SCAN_NOT_FOUND: { status: 404, message: 'Scan not found' },
  TEMPLATE_NOT_FOUND: { status: 404, message: 'Template not found' },
  WEBHOOK_NOT_FOUND: { status: 404, message: 'Webhook not found' },
  API_KEY_NOT_FOUND: { status: 404, message: 'API key not found' },
  TENANT_NOT_FOUND: { status: 404, message: 'Tenant not found' },
  // A Rampart extension (README, "Error codes Rampart adds"): redelivery of a webhook delivery.
  DELIVERY_NOT_FOUND: { status: 404, message: 'Webhook delivery not found' },
  ASSET_NOT_FOUND: { status: 404, message: 'Asset not found' },
  // A Rampart extension (README, "Error codes Rampart adds"): scheduled scans.
  SCHEDULE_NOT_FOUND: { status: 404, message: 'Schedule not found' },
  // A Rampart extension: an issue (findings across rescans, issue 23) unknown or another tenant's.
  ISSUE_NOT_FOUND: { status: 404, message: 'Issue not found' },
  // 409
  SCAN_ALREADY_COMPLETED: { status: 409, message: 'Scan has already completed' },
  SCAN_ALREADY_CANCELLED: { status: 409, message: 'Scan has already been cancelled' },
  SCAN_ALREADY_FAILED: { status: 409, message: 'Scan has already failed' },
  RESULTS_NOT_READY: { status: 409, message: 'Results are not ready: scan is <status>' },
  WEBHOOK_DISABLED: {
    status: 409,
    message: 'Webhook is disabled after consecutive failures; re-enable it with PATCH',
  },
  API_KEY_NOT_ACTIVE: { status: 409, message: 'API key is not active: <reason>' },
  // A Rampart extension (README, "Error codes Rampart adds"): redelivery of a webhook delivery.
  DELIVERY_NOT_REDELIVERABLE: {
    status: 409,
    message: 'Delivery cannot be sent again: <reason>',
  },
  VERIFICATION_NOT_AVAILABLE: {
    status: 409,
    message: 'This asset cannot be verified that way: <reason>',
  },
  // A Rampart extension (README, "Error codes Rampart adds"): a per-tenant cap on stored resources.
  TENANT_LIMIT_REACHED: {
    status: 409,
    message: 'Tenant limit reached: at most <limit> <resource>',
  },
  // 413
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body is larger than 1 MiB' },
  // 429
  RATE_LIMIT_EXCEEDED: { status: 429, message: 'Rate limit exceeded. Retry in <seconds> seconds.' },
  QUOTA_EXCEEDED: { status: 429, message: 'Monthly scan quota exceeded; it resets at <resetsAt>' },
  // 5xx
  INTERNAL_ERROR: { status: 500, message: 'Internal error' },
  DATABASE_ERROR: { status: 500, message: 'Database operation failed' },
  KAFKA_ERROR: { status: 500, message: 'Message queue operation failed' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service temporarily unavailable: <reason>' },
} as const satisfies Record<string, CatalogEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

export type ErrorParams = Readonly<Record<string, string | number>>;

/** Fills `<name>` placeholders of a code's template; a missing param leaves the text readable. */
export function formatErrorMessage(code: ErrorCode, params: ErrorParams = {}): string {
  return ERROR_CATALOG[code].message.replace(/<(\w+)>/g, (whole, name: string) => {
    const value = params[name];
    return value === undefined ? whole : String(value);
  });
}

/**
 * An expected failure that becomes an error envelope. Raised by use cases and the HTTP layer;
 * `headers` are sent with the answer (for example `Retry-After`).
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    params: ErrorParams = {},
    options: { headers?: Record<string, string>; message?: string; cause?: unknown } = {},
  ) {
    super(options.message ?? formatErrorMessage(code, params), { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.headers = options.headers ?? {};
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CATALOG, value);
}
