/**
 * nmap XML (`-oX`) to findings. Deterministic and free of I/O: the worker adds ids and times.
 *
 * Security: fast-xml-parser does no I/O, so neither the DOCTYPE nor the `xml-stylesheet`
 * instruction can load anything; with `processEntities: false` no DTD-declared entity is ever
 * expanded either (no "billion laughs"). The five XML entities and numeric character references
 * are decoded here, and only in the values a finding uses.
 *
 * Speed: the document pass keeps each `/nmaprun/host` unparsed (a stop node); a host whose
 * `<status>` is not `up` is dropped after one regular expression, and only up hosts get a full
 * parse. A subnet sweep is mostly down hosts: this took the largest fixture (256 hosts, 4 up) from
 * 36 to about 70 MB/s (bench/nmap-parse.ts). Every step is linear in the input.
 */
import { type X2jOptions, XMLParser } from 'fast-xml-parser';
import type { DraftFinding, ParseResult, Severity } from '../../domain/findings/finding.js';
import {
  attr,
  child,
  endOfLast,
  isNode,
  list,
  nodes,
  rawText,
  textOf,
  XML_TREE_OPTIONS,
  type XmlNode,
} from '../xml-tree.js';

/** What `parseNmapXml` returns besides findings and warnings. */
export interface NmapParseResult extends ParseResult {
  /** `/nmaprun/host` elements whose `status/@state` is `up`. */
  readonly hostsUp: number;
  /** `runstats/hosts/@total`; null when the run ended before nmap wrote it. */
  readonly hostsTotal: number | null;
  /** False when `</nmaprun>` is missing (cancelled, timed out, killed) or the input is not nmap XML. */
  readonly complete: boolean;
}

// ---------------------------------------------------------------------------------------------
// Tables: what counts, and how severe.

/**
 * Port states that make a finding. `open|filtered` (what UDP ports without an answer show) is
 * left out: nmap could not tell whether anything listens, and a UDP scan would report every
 * silent port. Such ports are counted in a warning instead. `closed`/`filtered` are not exposure.
 */
const REPORTED_PORT_STATES: ReadonlySet<string> = new Set(['open']);

/** Location host: the first address of these types, in this order; a MAC address never. */
const ADDRESS_PREFERENCE = ['ipv4', 'ipv6'] as const;

/** CVSS to the common scale (FORMATS.md): CVSS has one decimal, so `< 0.1` means 0.0. */
const CVSS_BANDS: ReadonlyArray<{ readonly below: number; readonly severity: Severity }> = [
  { below: 0.1, severity: 'info' },
  { below: 4, severity: 'low' },
  { below: 7, severity: 'medium' },
  { below: 9, severity: 'high' },
  { below: Number.POSITIVE_INFINITY, severity: 'critical' },
];

/** Scripts whose output is not repeated in the open-port evidence: they become findings. */
const SCRIPTS_WITH_OWN_FINDINGS: ReadonlySet<string> = new Set(['vulners']);

/** Severity of a vulners entry; a missing or unreadable CVSS is not guessed upwards. */
export function severityFromCvss(cvss: string | null): Severity {
  const score = cvss === null || cvss.trim() === '' ? Number.NaN : Number(cvss);
  if (!Number.isFinite(score)) {
    return 'info';
  }
  return CVSS_BANDS.find((band) => score < band.below)?.severity ?? 'critical';
}

/** A value with something besides white space in it. */
function nonEmpty(value: string | null): value is string {
  return value !== null && value.trim() !== '';
}

// ---------------------------------------------------------------------------------------------
// Document level.

const COMMON_OPTIONS: X2jOptions = {
  ...XML_TREE_OPTIONS,
  // Matcher objects instead of path strings in callbacks: measurably faster (29 → 36 MB/s).
  jPath: false,
};

let parsers: { readonly document: XMLParser; readonly host: XMLParser } | undefined;

/** Built on first use (no work at import time); XMLParser keeps no state between parses. */
function getParsers(): { readonly document: XMLParser; readonly host: XMLParser } {
  parsers ??= {
    document: new XMLParser({ ...COMMON_OPTIONS, stopNodes: ['nmaprun.host'] }),
    host: new XMLParser(COMMON_OPTIONS),
  };
  return parsers;
}

/** `<status ... state="...">`: `status` only occurs as the host's own status element. */
const HOST_STATE = /<status\s[^>]*?\bstate="([^"]*)"/;

function failed(warning: string): NmapParseResult {
  return { findings: [], warnings: [warning], hostsUp: 0, hostsTotal: null, complete: false };
}

/**
 * A cut-off document (no `</nmaprun>`) made parseable: everything up to the last complete
 * `</host>` or `</runstats>`, then the closing root tag. A `</host>` can only be markup (in
 * attribute values and text `<` is escaped), and everything before it is closed, so every
 * complete host survives and the half-written one is dropped. Null when not even the root start
 * tag is complete.
 */
function salvage(xml: string, root: number): string | null {
  let cut = endOfLast(xml, ['</host>', '</runstats>'], root);
  if (cut === -1) {
    const tagEnd = xml.indexOf('>', root);
    cut = tagEnd === -1 ? -1 : tagEnd + 1;
  }
  return cut === -1 ? null : `${xml.slice(0, cut)}</nmaprun>`;
}

/**
 * Parses nmap XML output (any version from 5.x, `xmloutputversion` 1.03 on) into findings:
 * one `info` finding per open port, one per vulners CVE (severity from CVSS), one `info` finding
 * for the best OS match. Never throws: empty, garbage or cut-off input gives warnings, and a
 * cut-off document still yields every complete `<host>` with `complete: false`.
 */
export function parseNmapXml(xml: string): NmapParseResult {
  if (typeof xml !== 'string' || xml.trim() === '') {
    return failed('nmap wrote no XML output');
  }
  const root = xml.indexOf('<nmaprun');
  if (root === -1) {
    return failed('the output is not nmap XML: no <nmaprun> element');
  }
  const complete = xml.lastIndexOf('</nmaprun>') > root;
  const text = complete ? xml : salvage(xml, root);
  if (text === null) {
    return failed('nmap XML ends inside the <nmaprun> start tag: no host was written');
  }
  let parsed: unknown;
  try {
    parsed = getParsers().document.parse(text);
  } catch (error) {
    return failed(`nmap XML is not well-formed: ${error instanceof Error ? error.message : error}`);
  }
  const run = isNode(parsed) ? child(parsed, 'nmaprun') : undefined;
  if (run === undefined) {
    return failed('the output is not nmap XML: <nmaprun> is not the root element');
  }
  return readRun(run, complete);
}

function readRun(run: XmlNode, complete: boolean): NmapParseResult {
  const findings: DraftFinding[] = [];
  const tally: PortTally = { openFiltered: 0 };
  const hosts = list(run.host);
  let hostsUp = 0;
  for (const item of hosts) {
    const host = upHost(item);
    if (host !== null) {
      hostsUp += 1;
      addHostFindings(host, findings, tally);
    }
  }
  const hostsTotal = Number.parseInt(
    attr(child(child(run, 'runstats'), 'hosts'), 'total') ?? '',
    10,
  );
  return {
    findings,
    warnings: runWarnings(run, { complete, hostsSeen: hosts.length, hostsUp, tally }),
    hostsUp,
    hostsTotal: Number.isSafeInteger(hostsTotal) ? hostsTotal : null,
    complete,
  };
}

/** The parsed host when its status is `up`, else null (down hosts are not parsed at all). */
function upHost(item: unknown): XmlNode | null {
  // The unparsed inner XML of the stop node (not entity-decoded: the host parse reads it).
  const content = rawText(item) ?? '';
  const quickState = HOST_STATE.exec(content)?.[1];
  if (quickState !== undefined && quickState !== 'up') {
    return null;
  }
  const parsed = getParsers().host.parse(content);
  const host = isNode(parsed) ? parsed : {};
  return attr(child(host, 'status'), 'state') === 'up' ? host : null;
}

interface RunFacts {
  readonly complete: boolean;
  readonly hostsSeen: number;
  readonly hostsUp: number;
  readonly tally: PortTally;
}

/** Outcomes worth telling apart from "clean": skipped targets, no hosts, cut-off or failed runs. */
function runWarnings(run: XmlNode, facts: RunFacts): string[] {
  const warnings: string[] = [];
  if (!facts.complete) {
    warnings.push(
      `nmap XML is truncated (no </nmaprun>): the scan did not finish; findings come from the ${facts.hostsSeen} complete <host> element(s)`,
    );
  }
  for (const target of nodes(run, 'target')) {
    if (attr(target, 'status') === 'skipped') {
      warnings.push(
        `nmap skipped target "${attr(target, 'specification') ?? ''}" (reason: ${attr(target, 'reason') ?? 'not given'})`,
      );
    }
  }
  if (facts.hostsSeen === 0) {
    warnings.push('nmap reported no hosts: nothing was scanned');
  } else if (facts.hostsUp === 0) {
    warnings.push(`none of the ${facts.hostsSeen} host(s) nmap scanned was up`);
  }
  const finished = child(child(run, 'runstats'), 'finished');
  if (attr(finished, 'exit') === 'error') {
    warnings.push(`nmap reported an error: ${attr(finished, 'errormsg') ?? 'no message'}`);
  }
  if (facts.tally.openFiltered > 0) {
    warnings.push(
      `${facts.tally.openFiltered} port(s) were open|filtered (no answer, typical for UDP) and are not reported as open`,
    );
  }
  return warnings;
}

// ---------------------------------------------------------------------------------------------
// Host level.

interface PortTally {
  openFiltered: number;
}

interface HostInfo {
  /** The location host: an IPv4, else an IPv6 address; a host name only when nmap gave no IP. */
  readonly address: string | null;
  readonly hostnames: readonly string[];
}

function hostInfo(host: XmlNode): HostInfo {
  const addresses = nodes(host, 'address');
  const hostnames = [
    ...new Set(
      nodes(child(host, 'hostnames'), 'hostname')
        .map((hostname) => attr(hostname, 'name'))
        .filter(nonEmpty),
    ),
  ];
  const address = ADDRESS_PREFERENCE.map((type) =>
    addresses.find((a) => attr(a, 'addrtype') === type),
  ).find((a) => a !== undefined);
  return { address: attr(address, 'addr') ?? hostnames[0] ?? null, hostnames };
}

function addHostFindings(host: XmlNode, out: DraftFinding[], tally: PortTally): void {
  const info = hostInfo(host);
  for (const port of nodes(child(host, 'ports'), 'port')) {
    const state = attr(child(port, 'state'), 'state') ?? '';
    if (REPORTED_PORT_STATES.has(state)) {
      addPortFindings(port, info, out);
    } else if (state === 'open|filtered') {
      tally.openFiltered += 1;
    }
  }
  const os = osFinding(host, info);
  if (os !== null) {
    out.push(os);
  }
}

/**
 * The best OS guess as an `info` finding (category `os-detection`), only present when `-O` ran.
 * It is inventory, not a weakness, but it tells which advisories apply; the fingerprint leaves the
 * guess out (ruleId `os-detection` + host), so a changed guess on a rescan is the same finding.
 */
function osFinding(host: XmlNode, info: HostInfo): DraftFinding | null {
  let best: { name: string; accuracy: number; match: XmlNode } | null = null;
  for (const match of nodes(child(host, 'os'), 'osmatch')) {
    const name = attr(match, 'name');
    const accuracy = Number(attr(match, 'accuracy') ?? '0');
    if (nonEmpty(name) && (best === null || accuracy > best.accuracy)) {
      best = { name, accuracy, match };
    }
  }
  if (best === null) {
    return null;
  }
  const classes = nodes(best.match, 'osclass').map((osclass) => ({
    vendor: attr(osclass, 'vendor'),
    family: attr(osclass, 'osfamily'),
    generation: attr(osclass, 'osgen'),
    type: attr(osclass, 'type'),
  }));
  return draft({
    ruleId: 'os-detection',
    title: `Operating system: ${best.name}`,
    category: 'os-detection',
    location: { host: info.address, port: null, protocol: null, url: null },
    description: `nmap's best operating-system guess for ${describeHost(info)} is ${best.name} (${best.accuracy}% accuracy).`,
    evidence: `osmatch: ${best.name}, accuracy ${best.accuracy}%`,
    raw: { name: best.name, accuracy: best.accuracy, classes },
  });
}

function describeHost(info: HostInfo): string {
  const others = info.hostnames.filter((name) => name !== info.address);
  return others.length === 0
    ? (info.address ?? 'the host')
    : `${info.address ?? 'the host'} (${others.join(', ')})`;
}

/** A finding with the parts nmap never has filled in. */
function draft(
  parts: Omit<
    DraftFinding,
    'severity' | 'toolSeverity' | 'identifiers' | 'remediation' | 'references'
  > &
    Partial<DraftFinding>,
): DraftFinding {
  return {
    severity: 'info',
    toolSeverity: null,
    identifiers: { cve: [], cwe: [] },
    remediation: null,
    references: [],
    ...parts,
  };
}

// ---------------------------------------------------------------------------------------------
// Port level.

interface PortInfo {
  readonly host: HostInfo;
  readonly port: number | null;
  readonly protocol: string | null;
  /** `22/tcp` */
  readonly label: string;
  readonly service: ServiceInfo;
}

interface ServiceInfo {
  readonly name: string | null;
  readonly product: string | null;
  readonly version: string | null;
  readonly extrainfo: string | null;
  readonly tunnel: string | null;
  readonly method: string | null;
  readonly conf: string | null;
  readonly cpe: readonly string[];
}

function serviceInfo(service: XmlNode | undefined): ServiceInfo {
  const present = (name: string) => {
    const value = attr(service, name);
    return nonEmpty(value) ? value : null;
  };
  return {
    name: present('name'),
    product: present('product'),
    version: present('version'),
    extrainfo: present('extrainfo'),
    tunnel: present('tunnel'),
    method: present('method'),
    conf: present('conf'),
    cpe: list(service?.cpe).map(textOf).filter(nonEmpty),
  };
}

/** `OpenSSH 7.4 (protocol 2.0)`, or null when version detection found no product. */
function productOf(service: ServiceInfo): string | null {
  if (service.product === null) {
    return null;
  }
  const version = service.version === null ? '' : ` ${service.version}`;
  const extra = service.extrainfo === null ? '' : ` (${service.extrainfo})`;
  return `${service.product}${version}${extra}`;
}

function addPortFindings(port: XmlNode, host: HostInfo, out: DraftFinding[]): void {
  const portid = attr(port, 'portid') ?? '';
  const number = /^[0-9]{1,5}$/.test(portid) ? Number(portid) : Number.NaN;
  const protocol = attr(port, 'protocol');
  const info: PortInfo = {
    host,
    port: number <= 65535 ? number : null,
    protocol,
    label: `${portid}/${protocol ?? '?'}`,
    service: serviceInfo(child(port, 'service')),
  };
  const scripts = nodes(port, 'script');
  out.push(openPortFinding(port, info, scripts));
  for (const script of scripts) {
    if (attr(script, 'id') === 'vulners') {
      addVulnersFindings(vulnersEntries(script), info, out);
    }
  }
}

function openPortFinding(port: XmlNode, info: PortInfo, scripts: XmlNode[]): DraftFinding {
  const { service } = info;
  // nmap's own notation for a service behind TLS (`ssl/http`).
  const shown =
    service.name === null
      ? ''
      : `${service.tunnel === null ? '' : `${service.tunnel}/`}${service.name}`;
  const product = productOf(service);
  const state = child(port, 'state');
  const evidence = [
    `state: ${attr(state, 'state')} (${attr(state, 'reason') ?? 'no reason given'})`,
    `service: ${shown || 'unknown'}${service.method === null ? '' : ` (${service.method}, confidence ${service.conf ?? '?'}/10)`}`,
    ...(product === null ? [] : [`product: ${product}`]),
    ...service.cpe.map((cpe) => `cpe: ${cpe}`),
    ...scripts
      .filter((script) => !SCRIPTS_WITH_OWN_FINDINGS.has(attr(script, 'id') ?? ''))
      .map((script) => `script ${attr(script, 'id')}: ${(attr(script, 'output') ?? '').trim()}`),
  ];
  return draft({
    ruleId: 'open-port',
    title: `Open port ${info.label}${shown === '' ? '' : ` (${shown})`}`,
    category: 'open-port',
    location: { host: info.host.address, port: info.port, protocol: info.protocol, url: null },
    description:
      `Port ${info.label} is open on ${describeHost(info.host)}.` +
      (shown === '' ? '' : ` Service: ${shown}${product === null ? '' : `, ${product}`}.`) +
      (service.tunnel === null
        ? ''
        : ` The service is reached through ${service.tunnel.toUpperCase()}/TLS.`),
    evidence: evidence.join('\n'),
    raw: {
      portid: attr(port, 'portid'),
      protocol: info.protocol,
      state: attr(state, 'state'),
      reason: attr(state, 'reason'),
      service: { ...service },
      scripts: scripts.map((script) => attr(script, 'id')),
    },
  });
}

// ---------------------------------------------------------------------------------------------
// vulners (third-party NSE script): `script/table[@key=<cpe>]/table/elem[@key=id|type|cvss|is_exploit]`.

interface VulnersEntry {
  readonly cpe: string | null;
  readonly id: string;
  readonly type: string;
  readonly cvss: string | null;
  readonly isExploit: boolean;
}

const CVE_ID = /CVE-\d{4}-\d{4,}/gi;

function vulnersEntries(script: XmlNode): VulnersEntry[] {
  const entries: VulnersEntry[] = [];
  for (const cpeTable of nodes(script, 'table')) {
    for (const table of nodes(cpeTable, 'table')) {
      const elems = new Map<string, string>();
      for (const elem of list(table.elem)) {
        const key = isNode(elem) ? attr(elem, 'key') : null;
        const text = textOf(elem);
        if (key !== null && text !== null) {
          elems.set(key, text.trim());
        }
      }
      const id = elems.get('id');
      if (id !== undefined && id !== '') {
        entries.push({
          cpe: attr(cpeTable, 'key'),
          id,
          type: (elems.get('type') ?? 'unknown').toLowerCase(),
          cvss: elems.get('cvss') ?? null,
          isExploit: elems.get('is_exploit') === 'true',
        });
      }
    }
  }
  return entries;
}

/** CVE ids named in a text, upper case, de-duplicated, in order. */
function cveIdsIn(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(CVE_ID), (match) => match[0].toUpperCase()))];
}

function vulnersUrl(entry: VulnersEntry): string {
  // Same form as the script's own output: https://vulners.com/<type>/<id>
  return `https://vulners.com/${encodeURIComponent(entry.type)}/${encodeURI(entry.id).replace(/[?#]/g, encodeURIComponent)}`;
}

/**
 * One finding per CVE entry. A non-CVE entry (Metasploit, Exploit-DB, Packet Storm, …) whose id
 * names a CVE listed for the same port (`MSF:ILITIES/DEBIAN-CVE-2019-6111/`) is an exploit or
 * check for that CVE: it goes into the CVE finding's references and evidence instead of repeating
 * it (the fixture has 19 such entries for CVE-2019-6111 alone). Any other entry is the only record
 * of its weakness and becomes a finding of its own.
 */
function addVulnersFindings(entries: VulnersEntry[], info: PortInfo, out: DraftFinding[]): void {
  const cves = new Map<string, { entry: VulnersEntry; related: VulnersEntry[] }>();
  for (const entry of entries) {
    const id = entry.id.toUpperCase();
    if (entry.type === 'cve' && !cves.has(id)) {
      cves.set(id, { entry, related: [] });
    }
  }
  const standalone: VulnersEntry[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    if (entry.type === 'cve' || seen.has(entry.id)) {
      continue;
    }
    seen.add(entry.id);
    const parent = cveIdsIn(entry.id)
      .map((id) => cves.get(id))
      .find((found) => found !== undefined);
    if (parent === undefined) {
      standalone.push(entry);
    } else {
      parent.related.push(entry);
    }
  }
  for (const { entry, related } of cves.values()) {
    out.push(vulnersFinding(entry, related, info));
  }
  for (const entry of standalone) {
    out.push(vulnersFinding(entry, [], info));
  }
}

function vulnersFinding(
  entry: VulnersEntry,
  related: readonly VulnersEntry[],
  info: PortInfo,
): DraftFinding {
  const { product, version } = info.service;
  const subject =
    product === null
      ? (entry.cpe ?? info.service.name ?? 'the service')
      : `${product} ${version ?? ''}`.trim();
  const what =
    entry.type === 'cve'
      ? entry.id
      : `${entry.isExploit ? 'Public exploit' : 'Known issue'} ${entry.id} (${entry.type})`;
  return {
    ruleId: entry.id,
    title: `${what} in ${subject} on ${info.label}`,
    severity: severityFromCvss(entry.cvss),
    toolSeverity: entry.cvss,
    category: 'vulnerability',
    location: { host: info.host.address, port: info.port, protocol: info.protocol, url: null },
    identifiers: { cve: cveIdsIn(entry.id), cwe: [] },
    description:
      `vulners lists ${entry.id} (CVSS ${entry.cvss ?? 'not given'}) for ${entry.cpe ?? 'the service'}, ` +
      `which nmap identified on ${describeHost(info.host)} port ${info.label}. The match is by ` +
      'product and version only: a distribution that backports fixes may not be affected.',
    evidence: [
      `vulners: ${entry.id}, type ${entry.type}, cvss ${entry.cvss ?? 'none'}, exploit ${entry.isExploit}`,
      ...(entry.cpe === null ? [] : [`cpe: ${entry.cpe}`]),
      ...(related.length === 0
        ? []
        : [`exploits and checks: ${related.map((r) => `${r.id} (${r.type})`).join(', ')}`]),
    ].join('\n'),
    remediation: null,
    references: [...new Set([entry, ...related].map(vulnersUrl))],
    raw: {
      cpe: entry.cpe,
      id: entry.id,
      type: entry.type,
      cvss: entry.cvss,
      isExploit: entry.isExploit,
      related: related.map((r) => r.id),
    },
  };
}
