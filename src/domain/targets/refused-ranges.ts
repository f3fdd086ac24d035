/**
 * Address ranges a scan may not reach while `ALLOW_PRIVATE_TARGETS` is off. decisions.md:
 * "`TARGET_NOT_ALLOWED` | 403 | target is, or resolves to, a loopback/private/link-local/metadata
 * address". Beyond those four the table also refuses addresses that never name one public host
 * (unspecified, multicast, broadcast, reserved 240/4, carrier-grade NAT, IPv6 site-local and unique
 * local). Documentation and benchmarking ranges (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24,
 * 198.18.0.0/15, 2001:db8::/32) stay allowed: they are not internal networks, and tests use them.
 *
 * IPv6 addresses that carry an IPv4 address are judged by that address as well, since traffic to
 * them can end at it: IPv4-mapped (`::ffff:127.0.0.1`), IPv4-compatible (`::7f00:1`), IPv4-translated
 * (`::ffff:0:7f00:1`), NAT64 well-known prefix (`64:ff9b::7f00:1`), 6to4 (`2002:7f00:1::`) and
 * Teredo (client address, stored inverted). The local-use NAT64 prefix 64:ff9b:1::/48 is refused
 * whole: its translation is whatever the local network defines.
 */
import ipaddr from 'ipaddr.js';
import { normalizeAddress } from '../network/ip-allowlist.js';
import {
  allowsPrivateAddress,
  allowsPrivateNetwork,
  type PrivateTargetPolicy,
} from './private-target-policy.js';
import type { ScanTarget } from './target.js';

export type RefusedRangeName =
  | 'cloud metadata'
  | 'loopback'
  | 'unspecified'
  | 'private'
  | 'carrier-grade NAT'
  | 'link-local'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'site-local'
  | 'unique local'
  | 'local-use NAT64';

interface Prefix {
  readonly bytes: readonly number[];
  readonly prefix: number;
}

interface Range extends Prefix {
  readonly name: RefusedRangeName;
  readonly cidr: string;
}

function prefixOf(cidr: string): Prefix {
  const [address, prefix] = ipaddr.parseCIDR(cidr);
  return { bytes: address.toByteArray(), prefix };
}

function range(name: RefusedRangeName, cidr: string): Range {
  return { name, cidr, ...prefixOf(cidr) };
}

// Order matters: the first match names an address, so the single metadata addresses come before the
// link-local, carrier-grade NAT and unique local ranges that contain them.
const IPV4_RANGES: readonly Range[] = [
  range('cloud metadata', '169.254.169.254/32'), // AWS, GCP, Azure, OCI, DigitalOcean …
  range('cloud metadata', '169.254.170.2/32'), // AWS ECS task credentials
  range('cloud metadata', '100.100.100.200/32'), // Alibaba Cloud
  range('cloud metadata', '168.63.129.16/32'), // Azure WireServer (a public address)
  range('loopback', '127.0.0.0/8'),
  range('unspecified', '0.0.0.0/8'),
  range('private', '10.0.0.0/8'),
  range('private', '172.16.0.0/12'),
  range('private', '192.168.0.0/16'),
  range('carrier-grade NAT', '100.64.0.0/10'),
  range('link-local', '169.254.0.0/16'),
  range('multicast', '224.0.0.0/4'),
  range('broadcast', '255.255.255.255/32'),
  range('reserved', '240.0.0.0/4'),
];

const IPV6_RANGES: readonly Range[] = [
  range('cloud metadata', 'fd00:ec2::254/128'), // AWS IMDS over IPv6
  range('cloud metadata', 'fd20:ce::254/128'), // GCP metadata over IPv6
  range('loopback', '::1/128'),
  range('unspecified', '::/128'),
  range('link-local', 'fe80::/10'),
  range('site-local', 'fec0::/10'),
  range('unique local', 'fc00::/7'),
  range('multicast', 'ff00::/8'),
  range('local-use NAT64', '64:ff9b:1::/48'),
];

/** An IPv6 prefix whose addresses carry an IPv4 address in 32 bits starting at `offset`. */
interface Embedding {
  readonly outer: Prefix;
  readonly offset: number;
  /** Teredo stores the client address with every bit inverted. */
  readonly inverted: boolean;
}

function embedding(cidr: string, offset: number, inverted = false): Embedding {
  return { outer: prefixOf(cidr), offset, inverted };
}

const EMBEDDINGS: readonly Embedding[] = [
  embedding('::ffff:0:0/96', 96), // IPv4-mapped
  embedding('::/96', 96), // IPv4-compatible (deprecated; :: and ::1 are matched first)
  embedding('::ffff:0:0:0/96', 96), // IPv4-translated (SIIT)
  embedding('64:ff9b::/96', 96), // NAT64 well-known prefix
  embedding('2002::/16', 16), // 6to4
  embedding('2001::/32', 96, true), // Teredo client
];

/** Whether the first `bits` bits of two byte arrays are equal. */
function samePrefix(a: readonly number[], b: readonly number[], bits: number): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((a[i / 8] ?? 0) & mask) !== ((b[i / 8] ?? 0) & mask)) {
      return false;
    }
  }
  return true;
}

/**
 * The name of the first refused range that overlaps the range `bytes`/`prefix` (a single address
 * has the full prefix). Two prefixes overlap exactly when they agree on the shorter one's bits.
 */
function firstOverlap(bytes: readonly number[], prefix: number): RefusedRangeName | null {
  const direct = bytes.length === 4 ? IPV4_RANGES : IPV6_RANGES;
  for (const candidate of direct) {
    if (samePrefix(bytes, candidate.bytes, Math.min(prefix, candidate.prefix))) {
      return candidate.name;
    }
  }
  if (bytes.length === 4) {
    return null;
  }
  for (const { outer, offset, inverted } of EMBEDDINGS) {
    if (!samePrefix(bytes, outer.bytes, Math.min(prefix, outer.prefix))) {
      continue;
    }
    const start = offset / 8;
    const v4 = bytes.slice(start, start + 4).map((b) => (inverted ? ~b & 0xff : b));
    // Only the IPv4 bits fixed by the range count; a range that fixes none includes them all.
    const fixed = Math.min(32, Math.max(0, prefix - offset));
    const name = firstOverlap(v4, fixed);
    if (name !== null) {
      return name;
    }
  }
  return null;
}

/** An IPv6 prefix as text from its 16 bytes. */
function ipv6Cidr(bytes: readonly number[], prefix: number): string {
  return `${ipaddr.fromByteArray([...bytes]).toString()}/${prefix}`;
}

/**
 * Every refused range as CIDR text for a packet filter, which cannot look inside an address the way
 * refusedRangeOf does: the IPv4 ranges, the IPv6 ranges, and for each IPv6 prefix that carries an
 * IPv4 address the prefixes that carry a refused IPv4 range (`::ffff:127.0.0.0/104`). Teredo is
 * listed whole (2001::/32): its client address sits behind 64 free bits, so no prefix selects it.
 *
 * @example refusedCidrs().ipv4[0] // '169.254.169.254/32'
 */
export function refusedCidrs(): { ipv4: string[]; ipv6: string[] } {
  const embedded: string[] = [];
  for (const { outer, offset, inverted } of EMBEDDINGS) {
    if (inverted) {
      embedded.push(ipv6Cidr(outer.bytes, outer.prefix));
      continue;
    }
    for (const v4 of IPV4_RANGES) {
      const bytes = [...outer.bytes];
      bytes.splice(offset / 8, 4, ...v4.bytes);
      embedded.push(ipv6Cidr(bytes, offset + v4.prefix));
    }
  }
  return {
    ipv4: IPV4_RANGES.map((candidate) => candidate.cidr),
    ipv6: [...IPV6_RANGES.map((candidate) => candidate.cidr), ...embedded],
  };
}

/**
 * The name of the refused range an IP address falls in, or null when it is allowed or is not an IP
 * address. Lenient on purpose: resolver answers may carry a zone (`fe80::1%eth0`) and forms such as
 * `127.1` are judged by the address they mean.
 *
 * @example refusedRangeOf('::ffff:127.0.0.1') // 'loopback'
 */
export function refusedRangeOf(address: string): RefusedRangeName | null {
  const parsed = normalizeAddress(address);
  if (parsed === null) {
    return null;
  }
  const bytes = parsed.toByteArray();
  return firstOverlap(bytes, bytes.length * 8);
}

/**
 * The name of a refused range that a CIDR range overlaps (contains, or lies inside), or null. Null
 * also for text that is not a CIDR range: callers pass targets parseTarget has validated.
 *
 * @example refusedRangeOfNetwork('126.0.0.0/7') // 'loopback'
 */
export function refusedRangeOfNetwork(cidr: string): RefusedRangeName | null {
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    parsed = ipaddr.parseCIDR(cidr);
  } catch {
    return null;
  }
  const [address, prefix] = parsed;
  return firstOverlap(address.toByteArray(), prefix);
}

/** "a loopback address", "an unspecified address". */
export function describeRefusedRange(name: RefusedRangeName): string {
  return `${name === 'unspecified' ? 'an' : 'a'} ${name} address`;
}

/**
 * The refused range a scan may not reach `address` in under ALLOW_PRIVATE_TARGETS `policy`, or null
 * when the address is in none or the policy allows it.
 *
 * @example addressRefusal('127.0.0.1', ['127.0.0.2/32']) // 'loopback'
 */
export function addressRefusal(
  address: string,
  policy: PrivateTargetPolicy,
): RefusedRangeName | null {
  const name = refusedRangeOf(address);
  return name === null || allowsPrivateAddress(policy, address) ? null : name;
}

/**
 * Why a target is refused before any name resolution under ALLOW_PRIVATE_TARGETS `policy` (off
 * unless given): an IP-literal host (of an ip, host, url or image target) in a refused range, or a
 * network overlapping one, that the policy does not allow. Null for names, which are judged after
 * resolution, and for allowed addresses.
 *
 * @example targetRefusal(ipTarget('127.0.0.1')) // '127.0.0.1 is a loopback address'
 */
export function targetRefusal(
  target: ScanTarget,
  policy: PrivateTargetPolicy = false,
): string | null {
  if (target.type === 'network') {
    const name = refusedRangeOfNetwork(target.value);
    return name === null || allowsPrivateNetwork(policy, target.value)
      ? null
      : `${target.value} includes ${name} addresses`;
  }
  if (!target.hostIsAddress || target.host === null) {
    return null;
  }
  const name = addressRefusal(target.host, policy);
  return name === null ? null : `${target.host} is ${describeRefusedRange(name)}`;
}
