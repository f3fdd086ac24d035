/**
 * What the worker's check just before a scan starts settles about where the scanner may connect,
 * handed to the engine's command line so a tool that can be held to it is (issue 18, "Pin what
 * the tools allow"): nmap scans the checked address instead of resolving the name again, nuclei
 * refuses private networks itself when they are not allowed.
 */

export interface TargetPin {
  /**
   * The address the worker resolved the target's host name to and judged (`pinnedAddress`), the
   * literal itself for an address, or null when there is none (a network, an image without a
   * registry). Only this address was checked at start; the name may resolve elsewhere later.
   */
  readonly address: string | null;
  /** ALLOW_PRIVATE_TARGETS: whether any address of the refused ranges may be reached (`true` or a list). */
  readonly privateTargetsAllowed: boolean;
}

/**
 * The one address a tool is pinned to, from every address the worker's check resolved and judged
 * (each was allowed, or the scan would not start): the first IPv4 address in the resolver's order,
 * else the first IPv6 one. IPv4 first because nmap without `-6` resolves a name to its first IPv4
 * address too, so a scan of a name reaches the host it always did; a name with only IPv6
 * addresses is scanned over IPv6. Null when nothing was resolved.
 *
 * @example pinnedAddress(['2001:db8::10', '192.0.2.10', '192.0.2.11']) // '192.0.2.10'
 */
export function pinnedAddress(addresses: readonly string[]): string | null {
  return addresses.find((address) => !address.includes(':')) ?? addresses[0] ?? null;
}
