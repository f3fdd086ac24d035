/**
 * A scan target after validation. `type` is the given or inferred target type; `host` is the name
 * or address a scanner connects to (a URL's host name, a CIDR's address part), used for the
 * private-range and resolution checks.
 */
export type TargetType = 'host' | 'url' | 'domain' | 'ip' | 'network' | 'image';

export interface ScanTarget {
  /** Exactly as submitted (validated: no whitespace, control characters or leading `-`). */
  readonly value: string;
  readonly type: TargetType;
  /** The name or address part: a URL's host (IPv6 without brackets), a CIDR's address, an image's registry host or null. */
  readonly host: string | null;
  /** Whether `host` is an IP literal (then no name resolution is needed). */
  readonly hostIsAddress: boolean;
}
