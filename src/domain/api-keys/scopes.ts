/**
 * The complete scope list of the specification ("Scopes (complete list)"), then the scopes of
 * Rampart's extensions (README: "Issues", "Assets", "Scheduled scans"); a key created without
 * `scopes` gets all of them, as the specification says ("default is all scopes").
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
  // Extensions (README): issue triage, assets, scheduled scans.
  'results:triage',
  'assets:read',
  'assets:write',
  'schedules:read',
  'schedules:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}
