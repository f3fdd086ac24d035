/**
 * The API key forms: the create form's values and the body they become, and the rotation's grace
 * period. Scopes and scan types are the ones the API accepts (the service's own lists).
 */
import type { operations } from '../../../src/client/index.js';
import { SCOPES, type Scope } from '../../../src/domain/api-keys/scopes.js';
import { ENGINE_NAMES, type EngineName } from '../../../src/engines/engine.js';
import type { Schema } from './api.js';

export { ENGINE_NAMES, SCOPES };

export type CreateApiKeyBody =
  operations['createApiKey']['requestBody']['content']['application/json'];

export interface ApiKeyFormValues {
  readonly name: string;
  readonly description: string;
  readonly scopes: readonly Scope[];
  /** Empty: every engine. */
  readonly scanTypes: readonly EngineName[];
  /** Addresses or CIDR ranges, separated by commas, spaces or lines; empty: any address. */
  readonly allowedIps: string;
  /** Days until the key expires; empty or 0: never. */
  readonly expiresInDays: string;
  /** Requests per minute, hour and day; empty: the service's default. */
  readonly perMinute: string;
  readonly perHour: string;
  readonly perDay: string;
}

export const EMPTY_API_KEY_FORM: ApiKeyFormValues = {
  name: '',
  description: '',
  scopes: SCOPES,
  scanTypes: [],
  allowedIps: '',
  expiresInDays: '90',
  perMinute: '',
  perHour: '',
  perDay: '',
};

/** The API's bounds (schemas/api-key.ts). */
const LIMITS = {
  expiresInDays: [0, 3650],
  perMinute: [1, 1000],
  perHour: [1, 50_000],
  perDay: [1, 500_000],
  graceHours: [0, 720],
} as const;
const MAX_IPS = 100;

type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly problem: string };

/** A whole number in [min, max] typed in a field; empty gives `empty`. */
export function parseWholeNumber<T>(
  text: string,
  [min, max]: readonly [number, number],
  what: string,
  empty: T,
): Parsed<number | T> {
  const trimmed = text.trim();
  if (trimmed === '') {
    return { ok: true, value: empty };
  }
  const value = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || value < min || value > max) {
    return { ok: false, problem: `${what} must be a whole number from ${min} to ${max}.` };
  }
  return { ok: true, value };
}

/** The allow-list as entries: split on commas and white space, duplicates dropped. */
export function parseIpList(text: string): Parsed<string[]> {
  const entries = [...new Set(text.split(/[\s,]+/).filter((entry) => entry !== ''))];
  if (entries.length > MAX_IPS) {
    return { ok: false, problem: `At most ${MAX_IPS} addresses or ranges.` };
  }
  const tooLong = entries.find((entry) => entry.length > 64);
  if (tooLong !== undefined) {
    return { ok: false, problem: `"${tooLong.slice(0, 20)}…" is not an address or range.` };
  }
  return { ok: true, value: entries };
}

/** The body that creates a key with these values, or what is wrong with them. */
export function createApiKeyBody(values: ApiKeyFormValues): Parsed<CreateApiKeyBody> {
  if (values.name.trim() === '') {
    return { ok: false, problem: 'Give the key a name.' };
  }
  if (values.scopes.length === 0) {
    return { ok: false, problem: 'Choose at least one scope.' };
  }
  const ips = parseIpList(values.allowedIps);
  const days = parseWholeNumber(values.expiresInDays, LIMITS.expiresInDays, 'Expiry', null);
  const perMinute = parseWholeNumber(values.perMinute, LIMITS.perMinute, 'Per minute', null);
  const perHour = parseWholeNumber(values.perHour, LIMITS.perHour, 'Per hour', null);
  const perDay = parseWholeNumber(values.perDay, LIMITS.perDay, 'Per day', null);
  for (const parsed of [ips, days, perMinute, perHour, perDay]) {
    if (!parsed.ok) {
      return parsed;
    }
  }
  const value = (parsed: Parsed<number | null>) => (parsed.ok ? parsed.value : null);
  const description = values.description.trim();
  const minute = value(perMinute);
  const hour = value(perHour);
  const day = value(perDay);
  return {
    ok: true,
    value: {
      name: values.name.trim(),
      ...(description === '' ? {} : { description }),
      scopes: [...values.scopes],
      ...(values.scanTypes.length === 0 ? {} : { allowedScanTypes: [...values.scanTypes] }),
      ...(ips.ok && ips.value.length > 0 ? { allowedIpAddresses: ips.value } : {}),
      expiresInDays: value(days),
      ...(minute === null ? {} : { rateLimitPerMinute: minute }),
      ...(hour === null ? {} : { rateLimitPerHour: hour }),
      ...(day === null ? {} : { rateLimitPerDay: day }),
    },
  };
}

/** The rotation's grace period in hours (the API's default is 24). */
export function parseGraceHours(text: string): Parsed<number> {
  const parsed = parseWholeNumber(text, LIMITS.graceHours, 'The grace period', 24);
  return parsed;
}

/** True for a key that was rotated and still works until its grace period ends (expiresAt). */
export function inGracePeriod(key: Schema<'ApiKey'>): boolean {
  return key.status === 'active' && key.rotatedToKeyId !== null;
}
