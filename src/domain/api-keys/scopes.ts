/**
 * The complete scope list of the specification ("Scopes (complete list)"), then Rampart's
 * extensions: `results:triage` changes the triage of issues (issue 23). A key created without
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
  'results:triage',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}
