/**
 * Name resolution of scan targets, done by the worker just before a scan starts (decisions.md:
 * "Names are resolved again by the worker just before the scan starts, and a name that now resolves
 * into a refused range fails the scan with `TARGET_NOT_ALLOWED`"; a name that does not resolve, such
 * as `nonexistent.invalid`, fails it with `TARGET_UNRESOLVABLE`).
 *
 * Resolution goes through the system resolver (`getaddrinfo`, so /etc/hosts counts: `localhost` is
 * loopback), as the scanners themselves resolve. Every address counts, not only the first: a scanner
 * may connect to any of them.
 *
 * An image's registry is judged like any host (issue 18): an IP-literal registry by its address
 * (targetRefusal), a named one (`localhost:5000/app`, `registry.example.com/app`) resolved and
 * every address judged, since trivy pulls from it (`--image-src remote`). An image without a
 * registry (`alpine:3.19`, Docker Hub implied) has no host to check.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { PrivateTargetPolicy } from '../../domain/targets/private-target-policy.js';
import {
  addressRefusal,
  describeRefusedRange,
  targetRefusal,
} from '../../domain/targets/refused-ranges.js';
import type { ScanTarget } from '../../domain/targets/target.js';

/** Resolves a host name to every address it has. */
export type LookupAddresses = (host: string) => Promise<string[]>;

export interface ResolveTargetOptions {
  /** Replaces the system resolver (tests). */
  readonly lookup?: LookupAddresses;
  /** How long to wait for an answer; default 5000 ms. */
  readonly timeoutMs?: number;
}

export type ResolveTargetResult =
  | { ok: true; addresses: string[] }
  | { ok: false; code: 'TARGET_UNRESOLVABLE'; message: string };

export type CheckResolvedTargetResult =
  | { ok: true; addresses: string[] }
  | { ok: false; code: 'TARGET_UNRESOLVABLE' | 'TARGET_NOT_ALLOWED'; message: string };

export const DEFAULT_RESOLVE_TIMEOUT_MS = 5000;

const systemLookup: LookupAddresses = async (host) => {
  const answers = await dnsLookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
};

class ResolveTimeout extends Error {}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ResolveTimeout()), timeoutMs);
  });
  // getaddrinfo cannot be cancelled; the timeout only stops waiting for it.
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function unresolvable(message: string): ResolveTargetResult {
  return { ok: false, code: 'TARGET_UNRESOLVABLE', message };
}

/**
 * Resolves a target's host name to all its addresses (system resolver unless `options.lookup` is
 * given), waiting at most `options.timeoutMs`. Never throws: failures are `TARGET_UNRESOLVABLE`.
 *
 * @example await resolveTargetHost('localhost') // { ok: true, addresses: ['127.0.0.1'] }
 */
export async function resolveTargetHost(
  host: string,
  options: ResolveTargetOptions = {},
): Promise<ResolveTargetResult> {
  const lookup = options.lookup ?? systemLookup;
  const timeoutMs = options.timeoutMs ?? DEFAULT_RESOLVE_TIMEOUT_MS;
  let addresses: string[];
  try {
    addresses = await withTimeout(lookup(host), timeoutMs);
  } catch (error) {
    if (error instanceof ResolveTimeout) {
      return unresolvable(`${host} did not resolve within ${timeoutMs} ms`);
    }
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOTFOUND' || code === 'ENODATA'
      ? unresolvable(`${host} does not resolve to any address`)
      : unresolvable(`${host} could not be resolved (${code ?? 'lookup failed'})`);
  }
  if (addresses.length === 0) {
    return unresolvable(`${host} does not resolve to any address`);
  }
  return { ok: true, addresses };
}

/**
 * Decides whether a scan may start on `target` now: an IP-literal host or a network is judged by its
 * address(es) without DNS; a name is resolved and refused when ANY of its addresses lies in a
 * refused range that `allowPrivate` (ALLOW_PRIVATE_TARGETS) does not allow; an image's registry
 * counts as its host. On success `addresses` holds the resolved addresses (the literal itself for an address,
 * empty for networks and images without a registry).
 *
 * @example await checkResolvedTarget(target('localhost'), false)
 *   // { ok: false, code: 'TARGET_NOT_ALLOWED', message: 'localhost resolves to 127.0.0.1, a loopback address' }
 */
export async function checkResolvedTarget(
  target: ScanTarget,
  allowPrivate: PrivateTargetPolicy,
  lookupOrOptions: LookupAddresses | ResolveTargetOptions = {},
): Promise<CheckResolvedTargetResult> {
  const options =
    typeof lookupOrOptions === 'function' ? { lookup: lookupOrOptions } : lookupOrOptions;
  if (target.type === 'network' || target.hostIsAddress) {
    const refusal = targetRefusal(target, allowPrivate);
    if (refusal !== null) {
      return { ok: false, code: 'TARGET_NOT_ALLOWED', message: refusal };
    }
    return {
      ok: true,
      addresses: target.type === 'network' || target.host === null ? [] : [target.host],
    };
  }
  if (target.host === null) {
    return { ok: true, addresses: [] };
  }
  const resolved = await resolveTargetHost(target.host, options);
  if (!resolved.ok || allowPrivate === true) {
    return resolved;
  }
  for (const address of resolved.addresses) {
    const range = addressRefusal(address, allowPrivate);
    if (range !== null) {
      return {
        ok: false,
        code: 'TARGET_NOT_ALLOWED',
        message: `${target.host} resolves to ${address}, ${describeRefusedRange(range)}`,
      };
    }
  }
  return resolved;
}
