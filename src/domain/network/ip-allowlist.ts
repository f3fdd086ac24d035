/**
 * IP allowlists of API keys. Entries must be canonical: a four-part decimal IPv4 address without
 * leading zeros (ipaddr.js alone accepts `127.1`, `0x7f.0.0.1` and reads `010.0.0.1` as 8.0.0.1),
 * an IPv6 address without a zone, or a CIDR range of either with no host bits set. Addresses are
 * compared after normalization: an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is its IPv4 address.
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

const DECIMAL_IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function parseCanonicalAddress(text: string): Address | null {
  if (DECIMAL_IPV4.test(text)) {
    return ipaddr.IPv4.parse(text);
  }
  if (text.includes(':') && !text.includes('%') && ipaddr.IPv6.isValid(text)) {
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

function entryMatches(address: Address, entry: string): boolean {
  const slash = entry.indexOf('/');
  if (slash === -1) {
    const single = ipaddr.process(entry);
    return single.kind() === address.kind() && single.toString() === address.toString();
  }
  const [rangeAddress, bits] = ipaddr.parseCIDR(entry);
  let range: Address = rangeAddress;
  let prefix = bits;
  if (range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress() && prefix >= 96) {
    range = (range as ipaddr.IPv6).toIPv4Address();
    prefix -= 96;
  }
  if (range.kind() !== address.kind()) {
    return false; // match() throws across families
  }
  return address.match(range, prefix);
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
  return allowlist.some((entry) => entryMatches(address, entry));
}
