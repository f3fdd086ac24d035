import { Type } from '@sinclair/typebox';
import { SCOPES } from '../../../domain/api-keys/scopes.js';
import { ENGINE_NAMES } from '../../../engines/engine.js';

const DateTime = Type.String({ format: 'date-time' });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);

export const ApiKeyView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    keyPrefix: Type.String({ description: 'Leading portion of the key, safe to display' }),
    scopes: Type.Array(Type.String()),
    allowedScanTypes: Type.Array(Type.String()),
    allowedIpAddresses: Type.Array(Type.String()),
    rateLimitPerMinute: Type.Integer(),
    rateLimitPerHour: Type.Integer(),
    rateLimitPerDay: Type.Integer(),
    status: Type.Union(['active', 'revoked', 'expired', 'suspended'].map((s) => Type.Literal(s))),
    expiresAt: NullableDateTime,
    createdAt: DateTime,
    lastUsedAt: NullableDateTime,
    revokedAt: NullableDateTime,
    revokedReason: Type.Union([Type.String(), Type.Null()]),
    rotatedToKeyId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  },
  { $id: 'ApiKey', additionalProperties: false },
);

export const ApiKeyRef = Type.Ref('ApiKey');

export const RawKey = Type.String({
  description:
    'The full key (`<prefix>_sk_` + 40 base62 characters), returned only in this response',
});

const ScanType = Type.String({ enum: [...ENGINE_NAMES], 'x-error-code': 'INVALID_SCAN_TYPE' });

/** Body of POST /api/v1/api-keys. Top-level unknown fields are ignored (decisions.md). */
export const CreateApiKeyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  scopes: Type.Optional(Type.Array(Type.String({ enum: [...SCOPES] }), { maxItems: 50 })),
  allowedScanTypes: Type.Optional(Type.Array(ScanType, { maxItems: 50 })),
  allowedIpAddresses: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      maxItems: 100,
      description: 'Canonical IPv4, IPv6 or CIDR entries (no host bits set)',
    }),
  ),
  rateLimitPerMinute: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 60 })),
  rateLimitPerHour: Type.Optional(Type.Integer({ minimum: 1, maximum: 50_000, default: 1000 })),
  rateLimitPerDay: Type.Optional(Type.Integer({ minimum: 1, maximum: 500_000, default: 10_000 })),
  expiresInDays: Type.Optional(
    Type.Unsafe<number | null>({
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 3650,
      description: '0 or null: the key never expires',
    }),
  ),
});

export const KeyIdParams = Type.Object({
  keyId: Type.String({
    format: 'uuid',
    'x-error-code': 'API_KEY_NOT_FOUND',
    description: 'The API key id',
  }),
});

export const TenantIdParams = Type.Object({
  tenantId: Type.String({
    format: 'uuid',
    'x-error-code': 'TENANT_NOT_FOUND',
    description: 'The tenant id',
  }),
});

export const TenantView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
    monthlyScanQuota: Type.Integer(),
    maxRunningScans: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'Scans the tenant may have running at once (an extension); null: the service default, TENANT_MAX_RUNNING_SCANS',
    }),
  },
  { $id: 'Tenant', additionalProperties: false },
);
