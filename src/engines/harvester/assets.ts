/**
 * The assets of a theHarvester report: reading host names, IP addresses, e-mail addresses, AS
 * numbers and URLs out of report entries, keeping each distinct one once, and the `info`
 * finding each becomes. Shared by the JSON and XML readers in parse.ts; pure.
 */
import type { DraftFinding } from '../../domain/findings/finding.js';
import { normalizeHost, normalizeUrl } from '../../domain/findings/fingerprint.js';

export type AssetKind = 'host' | 'ip' | 'email' | 'asn' | 'url';

/** Findings come out in this order: hosts, then addresses, e-mails, ASNs and URLs. */
const ASSET_KINDS: readonly AssetKind[] = ['host', 'ip', 'email', 'asn', 'url'];

/** Distinct assets kept per report by default; beyond it further ones are counted in a warning. */
export const MAX_ASSETS = 250_000;
/** Longer report values are not host names, addresses or URLs anyone should store. */
const MAX_VALUE_CHARS = 2048;
/** Resolved addresses kept in one host finding's raw record. */
const MAX_ADDRESSES_PER_HOST = 64;

// ---------------------------------------------------------------------------------------------
// Values: each reader returns the normalized value, or null for anything else.

const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
/** Two or more DNS labels (underscores allowed: `_dmarc`), optionally behind a `*.` wildcard. */
const HOST_NAME = new RegExp(`^(?:\\*\\.)?(?:${LABEL}\\.)+${LABEL}$`);
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
const IPV6_CHARS = /^[0-9a-fA-F:.]{2,45}$/;
const EMAIL_LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$/;
const ASN = /^(?:AS)?([0-9]{1,10})$/i;
const MAX_ASN = 4_294_967_295;

/** A host name, lower case, without the root dot; wildcards (`*.example.com`) are kept as such. */
function hostName(value: string): string | null {
  let name = value.trim().toLowerCase();
  if (name.endsWith('.')) {
    name = name.slice(0, -1);
  }
  return name.length <= 253 && HOST_NAME.test(name) ? name : null;
}

/** An IPv4 or IPv6 literal in canonical form (`2606:4700::6812:2AC6` → `2606:4700::6812:2ac6`). */
function ipAddress(value: string): string | null {
  const text = value.trim();
  if (IPV4.test(text)) {
    return text;
  }
  if (!text.includes(':') || !IPV6_CHARS.test(text)) {
    return null;
  }
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

/** An address or a CIDR range (`netaddr.IPNetwork` output of current releases). */
function ipOrRange(value: string): string | null {
  const slash = value.indexOf('/');
  if (slash === -1) {
    return ipAddress(value);
  }
  const address = ipAddress(value.slice(0, slash));
  const prefix = value.slice(slash + 1).trim();
  const bits = /^[0-9]{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
  const max = address?.includes(':') ? 128 : 32;
  return address !== null && bits <= max ? `${address}/${bits}` : null;
}

/** An e-mail address, lower case (see README: the local part is folded too). */
function emailAddress(value: string): string | null {
  const text = value.trim().toLowerCase();
  const at = text.lastIndexOf('@');
  const domain = at > 0 ? hostName(text.slice(at + 1)) : null;
  const local = text.slice(0, Math.max(at, 0));
  return domain !== null && !domain.startsWith('*') && EMAIL_LOCAL.test(local)
    ? `${local}@${domain}`
    : null;
}

/** `AS13335`, from `AS13335`, `as13335` or `13335`. */
function asNumber(value: string): string | null {
  const digits = ASN.exec(value.trim())?.[1];
  const number = digits === undefined ? Number.NaN : Number(digits);
  return number <= MAX_ASN ? `AS${number}` : null;
}

/** An http(s) URL as reported, with its host (IPv6 without brackets). */
function webUrl(value: string): { readonly url: string; readonly host: string } | null {
  const text = value.trim();
  if (/\s/.test(text)) {
    return null;
  }
  try {
    const parsed = new URL(text);
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
      return null;
    }
    return { url: text, host: parsed.hostname.replace(/^\[(.*)\]$/, '$1') };
  } catch {
    return null;
  }
}

/** A report value quoted for a warning or evidence line: JSON-escaped and short. */
export function quoted(value: string, max = 80): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
}

// ---------------------------------------------------------------------------------------------
// Collecting distinct assets (shared by the JSON and XML readers).

interface Asset {
  readonly kind: AssetKind;
  /** The normalized value: host name, address, e-mail, `AS…` or the URL as first reported. */
  readonly value: string;
  /** Report lists it came from (`hosts`, `ips`, `xml host`, …), in order of first appearance. */
  readonly lists: string[];
  /** The first report entry it was read from, exactly as written. */
  readonly entry: string;
  entries: number;
  /** Hosts only: addresses theHarvester resolved the name to (`name:ip` entries). */
  readonly addresses: string[];
  /** Hosts only: names a record of it points to (`name:target` entries: CNAME, MX). */
  readonly pointsTo: string[];
}

interface Rejected {
  count: number;
  readonly example: string;
}

export class AssetCollector {
  private readonly assets: Record<AssetKind, Map<string, Asset>> = {
    host: new Map(),
    ip: new Map(),
    email: new Map(),
    asn: new Map(),
    url: new Map(),
  };
  private readonly rejected = new Map<string, Rejected>();
  private total = 0;
  private dropped = 0;

  /** @param maxAssets distinct assets kept; further ones are only counted. */
  constructor(private readonly maxAssets = MAX_ASSETS) {}

  /** One entry of a report list holding `kind` values. */
  add(kind: AssetKind, raw: unknown, list: string): void {
    const entry = typeof raw === 'number' && kind === 'asn' ? String(raw) : raw;
    if (typeof entry !== 'string' || entry.length > MAX_VALUE_CHARS) {
      this.reject(list, typeof entry === 'string' ? entry : (JSON.stringify(entry) ?? ''));
      return;
    }
    switch (kind) {
      case 'host':
        this.addHostEntry(entry, list);
        return;
      case 'ip':
        this.keep('ip', ipOrRange(entry), entry, list);
        return;
      case 'email':
        this.keep('email', emailAddress(entry), entry, list);
        return;
      case 'asn':
        this.keep('asn', asNumber(entry), entry, list);
        return;
      case 'url':
        this.keep('url', webUrl(entry)?.url ?? null, entry, list);
        return;
    }
  }

  /**
   * A `hosts` entry: `name`, `*.name` or `name:value[, value…]`, each value an address the name
   * resolved to or a name a record of it points to (`blog.example.com:aspmx.l.google.com`). It is
   * split at the first colon, which a host name never contains, so IPv6 addresses
   * (`api.example.com:2606:4700::1`) stay whole. A bare address is an IP asset. The names pointed
   * to are kept in the host's finding, not as findings: they are mostly other parties' servers.
   */
  addHostEntry(entry: string, list: string): void {
    if (ipAddress(entry) !== null) {
      this.add('ip', entry, list);
      return;
    }
    const colon = entry.indexOf(':');
    const name = hostName(colon === -1 ? entry : entry.slice(0, colon));
    const values = colon === -1 ? [] : entry.slice(colon + 1).split(',');
    const addresses: string[] = [];
    const pointsTo: string[] = [];
    for (const value of values) {
      const address = ipAddress(value);
      const other = address === null ? hostName(value) : null;
      if (address !== null) {
        addresses.push(address);
      } else if (other !== null && !other.startsWith('*')) {
        pointsTo.push(other);
      } else {
        this.reject(list, entry);
        return;
      }
    }
    if (name === null) {
      this.reject(list, entry);
      return;
    }
    this.addHost(name, { addresses, pointsTo }, entry, list);
  }

  /** A host name with what it resolved or points to (also the XML `<host><ip/><hostname/>`). */
  addHost(
    name: string,
    found: { readonly addresses: readonly string[]; readonly pointsTo: readonly string[] },
    entry: string,
    list: string,
  ): void {
    const asset = this.keep('host', name, entry, list);
    if (asset !== null) {
      addDistinct(asset.addresses, found.addresses);
      addDistinct(asset.pointsTo, found.pointsTo);
    }
  }

  /**
   * Keeps `value` (null: not a valid value, counted as skipped) once per kind, compared the way
   * the fingerprint compares locations.
   */
  private keep(kind: AssetKind, value: string | null, entry: string, list: string): Asset | null {
    if (value === null) {
      this.reject(list, entry);
      return null;
    }
    const key = kind === 'url' ? normalizeUrl(value) : normalizeHost(value);
    const assets = this.assets[kind];
    const known = assets.get(key);
    if (known !== undefined) {
      known.entries += 1;
      if (!known.lists.includes(list)) {
        known.lists.push(list);
      }
      return known;
    }
    if (this.total >= this.maxAssets) {
      this.dropped += 1;
      return null;
    }
    const asset: Asset = {
      kind,
      value,
      lists: [list],
      entry,
      entries: 1,
      addresses: [],
      pointsTo: [],
    };
    assets.set(key, asset);
    this.total += 1;
    return asset;
  }

  private reject(list: string, entry: string): void {
    const known = this.rejected.get(list);
    if (known === undefined) {
      this.rejected.set(list, { count: 1, example: entry });
    } else {
      known.count += 1;
    }
  }

  warnings(): string[] {
    const warnings = [...this.rejected].map(
      ([list, { count, example }]) =>
        `${count} ${list} entr${count === 1 ? 'y was' : 'ies were'} not a valid ${LIST_WHAT[list] ?? 'value'} and ${count === 1 ? 'was' : 'were'} skipped (e.g. ${quoted(example)})`,
    );
    if (this.dropped > 0) {
      warnings.push(
        `the report lists more than ${this.maxAssets} distinct assets: ${this.dropped} further one(s) were not kept`,
      );
    }
    return warnings;
  }

  findings(scope: string): DraftFinding[] {
    return ASSET_KINDS.flatMap((kind) =>
      [...this.assets[kind].values()].map((asset) => assetFinding(asset, scope)),
    );
  }
}

/** Adds the values not yet in `into`, up to MAX_ADDRESSES_PER_HOST. */
function addDistinct(into: string[], values: readonly string[]): void {
  for (const value of values) {
    if (into.length < MAX_ADDRESSES_PER_HOST && !into.includes(value)) {
      into.push(value);
    }
  }
}

/** What each list should have held, for the skipped-entries warning. */
const LIST_WHAT: Readonly<Record<string, string>> = {
  hosts: 'host name (name, *.name or name:address/name)',
  ips: 'IP address',
  emails: 'e-mail address',
  asns: 'AS number',
  interesting_urls: 'http(s) URL',
  urls: 'http(s) URL',
  trello_urls: 'http(s) URL',
  'xml host': 'host name',
  'xml email': 'e-mail address',
  'xml result': 'value of its type',
};

// ---------------------------------------------------------------------------------------------
// Findings.

/** The part of a finding every asset shares. */
function infoFinding(
  parts: Pick<DraftFinding, 'ruleId' | 'title' | 'category' | 'location' | 'description'> & {
    readonly asset: Asset;
    readonly raw?: Readonly<Record<string, unknown>>;
  },
): DraftFinding {
  const { asset } = parts;
  const more = asset.entries > 1 ? ` (${asset.entries} entries)` : '';
  return {
    ruleId: parts.ruleId,
    title: parts.title.length > 200 ? `${parts.title.slice(0, 199)}…` : parts.title,
    severity: 'info',
    toolSeverity: null,
    category: parts.category,
    location: parts.location,
    identifiers: { cve: [], cwe: [] },
    description: parts.description,
    evidence: `theHarvester ${asset.lists.join(', ')}: ${quoted(asset.entry, 300)}${more}`,
    remediation: null,
    references: [],
    raw: {
      lists: [...asset.lists],
      entry: asset.entry.slice(0, 300),
      entries: asset.entries,
      ...parts.raw,
    },
  };
}

/** True when `name` is the scanned domain or a name under it. */
function inScope(name: string, scope: string): boolean {
  const bare = name.startsWith('*.') ? name.slice(2) : name;
  return scope !== '' && (bare === scope || bare.endsWith(`.${scope}`));
}

function scopeNote(name: string, scope: string): string {
  return inScope(name, scope)
    ? ''
    : ` It is not under ${scope}: check that it belongs to the target before acting on it.`;
}

const NO_PLACE = { host: null, port: null, protocol: null, url: null } as const;

function assetFinding(asset: Asset, scope: string): DraftFinding {
  const { value } = asset;
  switch (asset.kind) {
    case 'host': {
      const wildcard = value.startsWith('*.');
      const resolved =
        (asset.addresses.length === 0 ? '' : ` It resolved to ${asset.addresses.join(', ')}.`) +
        (asset.pointsTo.length === 0
          ? ''
          : ` Its DNS records point to ${asset.pointsTo.join(', ')}.`);
      return infoFinding({
        asset,
        ruleId: 'host',
        title: `${wildcard ? 'Wildcard host' : 'Host'} ${value}`,
        category: 'host',
        location: { ...NO_PLACE, host: value },
        description: wildcard
          ? `The wildcard name ${value} was found in public sources for ${scope} (usually a TLS certificate): names under ${value.slice(2)} may be served without being listed anywhere.${resolved}${scopeNote(value, scope)}`
          : `The host name ${value} was found in public sources for ${scope}.${resolved}${scopeNote(value, scope)}`,
        raw: { wildcard, addresses: [...asset.addresses], pointsTo: [...asset.pointsTo] },
      });
    }
    case 'ip': {
      const range = value.includes('/');
      return infoFinding({
        asset,
        ruleId: range ? 'ip-range' : 'ip',
        title: `${range ? 'IP range' : 'IP address'} ${value}`,
        category: 'ip',
        location: { ...NO_PLACE, host: value },
        description: `The ${range ? 'address range' : 'address'} ${value} was found in public sources for ${scope}.`,
      });
    }
    case 'email': {
      const domain = value.slice(value.lastIndexOf('@') + 1);
      return infoFinding({
        asset,
        ruleId: 'email',
        title: `E-mail address ${value}`,
        category: 'email',
        location: { ...NO_PLACE, host: domain, url: `mailto:${value}` },
        description: `The e-mail address ${value} was found in public sources for ${scope}; it can be targeted by phishing and password spraying. It is personal data when it names a person.${scopeNote(domain, scope)}`,
      });
    }
    case 'asn':
      return infoFinding({
        asset,
        // An AS has no host, port or URL: its number is the identity the fingerprint needs.
        ruleId: value,
        title: `Autonomous system ${value}`,
        category: 'asn',
        location: NO_PLACE,
        description: `Public sources for ${scope} name the autonomous system ${value}: a network that announces addresses serving the target.`,
      });
    case 'url': {
      const host = webUrl(value)?.host ?? null;
      return infoFinding({
        asset,
        ruleId: 'url',
        title: `URL ${value}`,
        category: 'url',
        location: { ...NO_PLACE, host, url: value },
        description: `The URL ${value} was found in public sources for ${scope}.${host === null ? '' : scopeNote(host, scope)}`,
      });
    }
  }
}
