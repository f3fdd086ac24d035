/**
 * Which registered asset covers a scan target (issue 24), pure. An asset's value follows the scan
 * target grammar of its kind (parse-target.ts), so both sides are ScanTargets:
 *
 * - `domain` example.com covers the name itself, every subdomain (a.b.example.com) and URLs on them;
 * - `host` covers exactly its name or address (as a host, a domain, an ip or a URL's host);
 * - `ip` covers that address (an ip or host target, a URL on it, a network of one address);
 * - `network` covers every address inside it, and networks inside it;
 * - `url` covers URLs of the same origin (scheme, host, port) whose path lies under its path
 *   (`https://a.example/app` covers `/app`, `/app/x`, not `/apple`);
 * - `image` covers the same reference, and an image without tag or digest covers all of them.
 *
 * When several assets cover a target, the narrowest wins: a URL, image, host or ip over a
 * network over a domain; a longer URL path, a longer prefix, a deeper domain over a shorter one;
 * among equals the first in the given order (the store gives the oldest first).
 */
import ipaddr from 'ipaddr.js';
import { parseTarget } from '../targets/parse-target.js';
import type { ScanTarget, TargetType } from '../targets/target.js';

/** The kinds of assets: the scan target types. */
export type AssetKind = TargetType;

export const ASSET_KINDS: readonly AssetKind[] = [
  'domain',
  'host',
  'ip',
  'network',
  'url',
  'image',
];

/** What coverage needs of an asset: its parsed value (type = the asset's kind). */
export interface CoveringCandidate {
  readonly value: ScanTarget;
}

type Range = { readonly address: ipaddr.IPv4 | ipaddr.IPv6; readonly bits: number };

function addressOf(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    return ipaddr.parse(text);
  } catch {
    return null;
  }
}

/** The addresses a target names, as one range; null when it names a host by name or an image. */
function rangeOf(target: ScanTarget): Range | null {
  if (target.type === 'network') {
    try {
      const [address, bits] = ipaddr.parseCIDR(target.value);
      return { address, bits };
    } catch {
      return null;
    }
  }
  if (target.type === 'image' || !target.hostIsAddress || target.host === null) {
    return null;
  }
  const address = addressOf(target.host);
  return address === null ? null : { address, bits: address.kind() === 'ipv4' ? 32 : 128 };
}

/** The host name a target names (lower case), when it names one (not an address or image). */
function nameOf(target: ScanTarget): string | null {
  if (target.type === 'image' || target.type === 'network' || target.hostIsAddress) {
    return null;
  }
  return target.host?.toLowerCase() ?? null;
}

function within(inner: Range, outer: Range): boolean {
  return (
    inner.address.kind() === outer.address.kind() &&
    inner.bits >= outer.bits &&
    // Both are the same kind here; ipaddr's typings want the pair spelled out.
    (inner.address as ipaddr.IPv4).match(outer.address as ipaddr.IPv4, outer.bits)
  );
}

function urlParts(value: string): { origin: string; path: string } | null {
  try {
    const url = new URL(value);
    return { origin: url.origin, path: url.pathname };
  } catch {
    return null;
  }
}

function pathUnder(path: string, base: string): boolean {
  if (base === '/' || path === base) {
    return true;
  }
  return path.startsWith(base.endsWith('/') ? base : `${base}/`);
}

/** An image reference without its tag and digest. */
function imageRepository(value: string): { repository: string; pinned: boolean } {
  const at = value.indexOf('@');
  const name = at === -1 ? value : value.slice(0, at);
  const colon = name.lastIndexOf(':');
  const tagged = colon > name.lastIndexOf('/');
  return { repository: tagged ? name.slice(0, colon) : name, pinned: at !== -1 || tagged };
}

/** Whether an asset (its value parsed as its kind) covers a scan target. */
export function assetCovers(asset: ScanTarget, target: ScanTarget): boolean {
  switch (asset.type) {
    case 'domain': {
      const name = nameOf(target);
      const domain = asset.value.toLowerCase();
      return name !== null && (name === domain || name.endsWith(`.${domain}`));
    }
    case 'host':
    case 'ip':
    case 'network': {
      const own = rangeOf(asset);
      if (own === null) {
        // A host asset given by name.
        return nameOf(target) === asset.host?.toLowerCase();
      }
      const theirs = rangeOf(target);
      return theirs !== null && within(theirs, own);
    }
    case 'url': {
      if (target.type !== 'url') {
        return false;
      }
      const own = urlParts(asset.value);
      const theirs = urlParts(target.value);
      return (
        own !== null &&
        theirs !== null &&
        own.origin === theirs.origin &&
        pathUnder(theirs.path, own.path)
      );
    }
    case 'image': {
      if (target.type !== 'image') {
        return false;
      }
      const own = imageRepository(asset.value);
      return own.pinned
        ? asset.value === target.value
        : imageRepository(target.value).repository === own.repository;
    }
  }
}

/** How narrow an asset is: higher is narrower (see the module comment). */
export function assetSpecificity(asset: ScanTarget): number {
  switch (asset.type) {
    case 'url':
      return 4000 + (urlParts(asset.value)?.path.length ?? 0);
    case 'image':
      return 4000 + (imageRepository(asset.value).pinned ? 1 : 0);
    case 'host':
    case 'ip':
      return 3000;
    case 'network':
      return 2000 + (rangeOf(asset)?.bits ?? 0);
    case 'domain':
      return 1000 + asset.value.split('.').length;
  }
}

/** The narrowest of `assets` that covers `target` (the first of equals), or null. */
export function narrowestCovering<T extends CoveringCandidate>(
  assets: readonly T[],
  target: ScanTarget,
): T | null {
  let best: T | null = null;
  let bestScore = -1;
  for (const asset of assets) {
    if (!assetCovers(asset.value, target)) {
      continue;
    }
    const score = assetSpecificity(asset.value);
    if (score > bestScore) {
      best = asset;
      bestScore = score;
    }
  }
  return best;
}

/**
 * An asset's value, checked with the scan target grammar of its kind (a network as wide as a scan
 * may name: IPv4 /16, IPv6 /112). The reason of a refusal is parse-target's.
 */
export function parseAssetValue(
  kind: AssetKind,
  value: string,
): { ok: true; value: ScanTarget } | { ok: false; reason: string } {
  const parsed = parseTarget(value, kind, [kind]);
  return parsed.ok ? { ok: true, value: parsed.target } : parsed;
}
