/**
 * The complete scope list of the specification ("Scopes (complete list)"), then the scopes of
 * Rampart's extensions (README, "Assets", "Scheduled scans"); a key created without `scopes` gets
 * them all.
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
  // Extensions (README): assets, scheduled scans.
  'assets:read',
  'assets:write',
  'schedules:read',
  'schedules:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}
