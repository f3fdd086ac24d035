/**
 * The complete scope list of the specification ("Scopes (complete list)"), and the extensions'
 * scopes after it (README, "Assets"): keys created without `scopes` get every one.
 */
export const SCOPES = [
  'scans:create',
  'scans:read',
  'scans:list',
  'scans:cancel',
  'results:read',
  'templates:create',
  'templates:read',
  'templates:update',
  'templates:delete',
  'webhooks:create',
  'webhooks:read',
  'webhooks:update',
  'webhooks:delete',
  'usage:read',
  'assets:read',
  'assets:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}
