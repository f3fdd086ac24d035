/**
 * IP allowlists of API keys. Entries must be canonical: a four-part decimal IPv4 address without
 * leading zeros (ipaddr.js alone accepts `127.1`, `0x7f.0.0.1` and reads `010.0.0.1` as 8.0.0.1),
 * an IPv6 address without a zone, or a CIDR range of either with no host bits set. Addresses are
 * compared after normalization: an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is its IPv4 address.
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

const DECIMAL_IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Whether `text` is an IPv4 address in canonical four-part decimal form (`127.0.0.1`, not `127.1`). */
export function isCanonicalIPv4(text: string): boolean {
  return DECIMAL_IPV4.test(text);
}

/**
 * Parses an address in canonical form (see the module comment), or null. An IPv6 address with an
 * embedded IPv4 part needs that part canonical too: ipaddr.js reads `::ffff:0x7f.0.0.1`.
 */
export function parseCanonicalAddress(text: string): Address | null {
  if (isCanonicalIPv4(text)) {
    return ipaddr.IPv4.parse(text);
  }
  if (text.includes(':') && !text.includes('%') && ipaddr.IPv6.isValid(text)) {
    const embedded = text.includes('.') ? text.slice(text.lastIndexOf(':') + 1) : null;
    if (embedded !== null && !isCanonicalIPv4(embedded)) {
      return null;
    }
    return ipaddr.IPv6.parse(text);
  }
  return null;
}

/** Why an allowlist entry is refused, or null when it is valid. */
export function allowlistEntryError(entry: string): string | null {
  const slash = entry.indexOf('/');
  const addressText = slash === -1 ? entry : entry.slice(0, slash);
  const address = parseCanonicalAddress(addressText);
  if (address === null) {
    return `${entry} is not a canonical IPv4 or IPv6 address or CIDR range`;
  }
  if (slash === -1) {
    return null;
  }
  const bitsText = entry.slice(slash + 1);
  const maxBits = address.kind() === 'ipv4' ? 32 : 128;
  if (!/^(0|[1-9]\d*)$/.test(bitsText) || Number(bitsText) > maxBits) {
    return `${entry} has an invalid prefix length (0 to ${maxBits})`;
  }
  const bits = Number(bitsText);
  const network =
    address.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(entry)
      : ipaddr.IPv6.networkAddressFromCIDR(entry);
  if (network.toString() !== address.toString()) {
    return `${entry} has host bits set; use ${network.toString()}/${bits}`;
  }
  return null;
}

/** Normalizes a peer address: IPv4-mapped IPv6 becomes IPv4. Null when it does not parse. */
export function normalizeAddress(address: string): Address | null {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const zoneless = text.split('%')[0] ?? text;
  if (!ipaddr.isValid(zoneless)) {
    return null;
  }
  return ipaddr.process(zoneless);
}

/** A parsed allowlist entry: a range of one family (a single address is a full-length range). */
interface Range {
  readonly network: Address;
  readonly prefix: number;
}

function parseEntry(entry: string): Range {
  const slash = entry.indexOf('/');
  let network: Address;
  let prefix: number;
  if (slash === -1) {
    network = ipaddr.process(entry);
    prefix = network.kind() === 'ipv4' ? 32 : 128;
  } else {
    [network, prefix] = ipaddr.parseCIDR(entry);
    if (
      network.kind() === 'ipv6' &&
      (network as ipaddr.IPv6).isIPv4MappedAddress() &&
      prefix >= 96
    ) {
      network = (network as ipaddr.IPv6).toIPv4Address();
      prefix -= 96;
    }
  }
  return { network, prefix };
}

/**
 * Parsed allowlists by their entries. Parsing two CIDR entries with ipaddr.js took 11 µs, on every
 * request of a key with an allowlist; a key's list rarely changes, so each distinct list is parsed
 * once. Bounded: when full, it starts again empty.
 */
const PARSED_LISTS = new Map<string, readonly Range[]>();
const MAX_PARSED_LISTS = 10_000;

function parsedAllowlist(allowlist: readonly string[]): readonly Range[] {
  const cacheKey = allowlist.join(',');
  let ranges = PARSED_LISTS.get(cacheKey);
  if (ranges === undefined) {
    ranges = allowlist.map(parseEntry);
    if (PARSED_LISTS.size >= MAX_PARSED_LISTS) {
      PARSED_LISTS.clear();
    }
    PARSED_LISTS.set(cacheKey, ranges);
  }
  return ranges;
}

/**
 * Whether `peer` may use a key with this allowlist. An empty allowlist allows every address; an
 * address that does not parse is never allowed by a non-empty list.
 */
export function isAddressAllowed(peer: string, allowlist: readonly string[]): boolean {
  if (allowlist.length === 0) {
    return true;
  }
  const address = normalizeAddress(peer);
  if (address === null) {
    return false;
  }
  // match() throws across families, so each range is compared only with its own family.
  return parsedAllowlist(allowlist).some(
    (range) =>
      range.network.kind() === address.kind() && address.match(range.network, range.prefix),
  );
}
