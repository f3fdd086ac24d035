/**
 * ALLOW_PRIVATE_TARGETS as one policy: which addresses in a refused range (refused-ranges.ts) a scan
 * may reach anyway. `false` allows none, `true` allows them all, and a list of CIDR ranges allows
 * only the addresses inside them (`10.20.0.0/16` for a deployment that scans only its own network).
 * Validation (TARGET_NOT_ALLOWED), the worker's check of resolved addresses and the kernel's egress
 * rules for the scanner user all read this one value, so they cannot disagree.
 */
import ipaddr from 'ipaddr.js';
import { allowlistEntryError, isAddressAllowed } from '../network/ip-allowlist.js';

/** `false`, `true`, or the canonical CIDR ranges allowed (never empty). */
export type PrivateTargetPolicy = boolean | readonly string[];

/**
 * Why an entry of the allowed list is not usable, or null. Entries follow the grammar of API key
 * allowlists: canonical addresses or CIDR ranges without host bits.
 */
export function allowedRangeError(entry: string): string | null {
  return allowlistEntryError(entry);
}

/** An entry as a CIDR range: a single address becomes its /32 or /128. */
export function asCidr(entry: string): string {
  if (entry.includes('/')) {
    return entry;
  }
  return `${entry}/${ipaddr.parse(entry).kind() === 'ipv4' ? 32 : 128}`;
}

/**
 * Whether the policy lets a scan reach `address` although it lies in a refused range. IPv4-mapped
 * IPv6 addresses are judged as their IPv4 address, as everywhere else.
 *
 * @example allowsPrivateAddress(['127.0.0.2/32'], '127.0.0.2') // true
 */
export function allowsPrivateAddress(policy: PrivateTargetPolicy, address: string): boolean {
  if (typeof policy === 'boolean') {
    return policy;
  }
  return policy.length > 0 && isAddressAllowed(address, policy);
}

/**
 * Whether the policy lets a scan reach every address of the CIDR range `cidr`: with a list, the
 * range must lie wholly inside one allowed range.
 *
 * @example allowsPrivateNetwork(['10.20.0.0/16'], '10.20.3.0/24') // true
 */
export function allowsPrivateNetwork(policy: PrivateTargetPolicy, cidr: string): boolean {
  if (typeof policy === 'boolean') {
    return policy;
  }
  let network: ipaddr.IPv4 | ipaddr.IPv6;
  let prefix: number;
  try {
    [network, prefix] = ipaddr.parseCIDR(cidr);
  } catch {
    return false;
  }
  return policy.some((entry) => {
    const [allowed, allowedPrefix] = ipaddr.parseCIDR(asCidr(entry));
    return (
      allowed.kind() === network.kind() &&
      prefix >= allowedPrefix &&
      network.match(allowed, allowedPrefix)
    );
  });
}
