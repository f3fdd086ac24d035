/**
 * The scanner user's egress policy as an nftables ruleset (issue 18, "the target policy in the
 * kernel"). Pure: the caller gathers the scanner's uid, ALLOW_PRIVATE_TARGETS, the service's own
 * addresses and the machine's resolvers; nft-egress.ts loads the text with `nft -f -`.
 *
 * Every packet a socket of the scanner user sends is judged in this order, first match wins:
 *   1. the configured DNS resolvers on port 53 (udp and tcp): accepted, so names still resolve
 *      when the resolver itself is in a refused range (10.255.255.53 on our machines);
 *   2. the service's own addresses: rejected, whatever ALLOW_PRIVATE_TARGETS says, so a scan never
 *      reaches the machine it runs on (its database, its API, its other listeners);
 *   3. the ranges ALLOW_PRIVATE_TARGETS lists: accepted;
 *   4. the refused ranges of refused-ranges.ts (none when ALLOW_PRIVATE_TARGETS is `true`),
 *      including the IPv6 prefixes that carry a refused IPv4 address: rejected;
 *   5. everything else (public addresses): accepted.
 * Other users' packets, and packets without a socket (a kernel-made TCP reset, for example), never
 * enter the scanner chain: `meta skuid` does not match them, so root's traffic is untouched.
 *
 * Refused packets are rejected with ICMP administratively-prohibited rather than dropped: the tool
 * fails at once (curl exit 7 in 40 ms, node's fetch EHOSTUNREACH) instead of waiting for its own
 * timeout (curl 5 s, fetch 10 s when dropped), and nmap reports the port `filtered`, not `closed`
 * as a TCP reset would make it say. Measured on this machine; see README "Egress rules".
 *
 * The text replaces the whole table in one transaction (create if missing, delete, define), so a
 * reload is atomic and idempotent and a table left behind by a crashed worker is replaced.
 */
import ipaddr from 'ipaddr.js';
import type { PrivateTargetPolicy } from '../../domain/targets/private-target-policy.js';
import { asCidr } from '../../domain/targets/private-target-policy.js';
import { refusedCidrs } from '../../domain/targets/refused-ranges.js';

export interface EgressPolicy {
  /** The nftables table, family inet (SCANNER_EGRESS_TABLE). */
  readonly table: string;
  /** The scanner user's uid. */
  readonly uid: number;
  readonly allowPrivateTargets: PrivateTargetPolicy;
  /** Addresses or CIDR ranges of the machine the service listens on (ownAddresses). */
  readonly ownAddresses: readonly string[];
  /** The DNS resolvers scanners may ask (resolversFromResolvConf). */
  readonly resolvers: readonly string[];
}

const REJECT = 'reject with icmpx admin-prohibited';

/** IPv4 and IPv6 CIDR ranges apart, each without duplicates; text that does not parse is left out. */
function byFamily(entries: readonly string[]): { ipv4: string[]; ipv6: string[] } {
  const ipv4 = new Set<string>();
  const ipv6 = new Set<string>();
  for (const entry of entries) {
    const text = entry.split('%')[0] ?? entry;
    let network: ipaddr.IPv4 | ipaddr.IPv6;
    let prefix: number;
    try {
      [network, prefix] = ipaddr.parseCIDR(asCidr(text));
    } catch {
      continue;
    }
    (network.kind() === 'ipv4' ? ipv4 : ipv6).add(`${network.toString()}/${prefix}`);
  }
  return { ipv4: [...ipv4], ipv6: [...ipv6] };
}

/** One rule per family that has entries: `ip daddr { … } <rest>`. */
function daddrRules(entries: readonly string[], rest: string): string[] {
  const { ipv4, ipv6 } = byFamily(entries);
  const rules: string[] = [];
  if (ipv4.length > 0) {
    rules.push(`ip daddr { ${ipv4.join(', ')} } ${rest}`);
  }
  if (ipv6.length > 0) {
    rules.push(`ip6 daddr { ${ipv6.join(', ')} } ${rest}`);
  }
  return rules;
}

/**
 * The ruleset text for `nft -f -`.
 *
 * @example egressRuleset({ table: 'rampart_egress', uid: 999, allowPrivateTargets: false,
 *   ownAddresses: ['127.0.0.1'], resolvers: ['10.255.255.53'] })
 */
export function egressRuleset(policy: EgressPolicy): string {
  const { table, allowPrivateTargets } = policy;
  const refused = refusedCidrs();
  const rules = [
    ...daddrRules(policy.resolvers, 'meta l4proto { tcp, udp } th dport 53 accept'),
    ...daddrRules(policy.ownAddresses, REJECT),
    ...(typeof allowPrivateTargets === 'boolean' ? [] : daddrRules(allowPrivateTargets, 'accept')),
    ...(allowPrivateTargets === true ? [] : daddrRules([...refused.ipv4, ...refused.ipv6], REJECT)),
  ];
  return [
    `table inet ${table} {}`,
    `delete table inet ${table}`,
    `table inet ${table} {`,
    '  chain output {',
    '    type filter hook output priority 0; policy accept;',
    `    meta skuid ${policy.uid} jump scanner`,
    '  }',
    '  chain scanner {',
    ...rules.map((rule) => `    ${rule}`),
    '  }',
    '}',
    '',
  ].join('\n');
}

/** The text that removes the table, also when it is already gone (created, then deleted). */
export function deleteEgressTable(table: string): string {
  return `table inet ${table} {}\ndelete table inet ${table}\n`;
}

/**
 * The resolvers of an /etc/resolv.conf text (`nameserver` lines, zones removed). None configured
 * means the C library asks the local machine, so then those are the resolvers.
 *
 * @example resolversFromResolvConf('nameserver 10.255.255.53\n') // ['10.255.255.53']
 */
export function resolversFromResolvConf(text: string): string[] {
  const resolvers: string[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*nameserver\s+(\S+)/.exec(line);
    const address = match?.[1]?.split('%')[0];
    if (address !== undefined && ipaddr.isValid(address)) {
      resolvers.push(ipaddr.process(address).toString());
    }
  }
  return resolvers.length > 0 ? resolvers : ['127.0.0.1', '::1'];
}

/**
 * The addresses the service listens on, from the addresses HOST stands for and the machine's
 * interface addresses (os.networkInterfaces()). A wildcard (`0.0.0.0`, `::`) listens on every local
 * address: every interface address, and all of 127.0.0.0/8 and ::1, on which loopback answers.
 *
 * @example ownAddresses(['127.0.0.1'], ['127.0.0.1', '192.0.2.10']) // ['127.0.0.1']
 */
export function ownAddresses(
  listenAddresses: readonly string[],
  interfaceAddresses: readonly string[],
): string[] {
  const own = new Set<string>();
  for (const address of listenAddresses) {
    if (!ipaddr.isValid(address)) {
      continue;
    }
    const parsed = ipaddr.process(address);
    if (parsed.range() === 'unspecified') {
      for (const local of ['127.0.0.0/8', '::1', ...interfaceAddresses]) {
        own.add(local);
      }
    } else {
      own.add(parsed.toString());
    }
  }
  return [...own];
}
