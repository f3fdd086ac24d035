/**
 * ZAP alerts to findings: the part shared by the JSON and the XML reader. Each reader turns its
 * format into `ZapSite`/`ZapAlert` records (strings capped as they are read) and hands them to a
 * `ZapFindingCollector`, which keeps only findings and a few counters: memory stays bounded by
 * one alert at a time.
 *
 * One finding per alert, instance URL and parameter (the HTTP methods of one URL and parameter
 * are one finding). The fingerprint is made of ruleId `alertRef` (else `pluginid`), plus
 * `:<param>` when the instance names one, and the location (site host and port, instance URL
 * with its volatile parts removed). See README.md, "Fingerprint".
 */
import type { DraftFinding, Severity } from '../../domain/findings/finding.js';
import { htmlToText, referenceUrls } from './html-text.js';

/** `<site name host port ssl>` / `site[]` with `@name`, `@host`, `@port`, `@ssl`. */
export interface ZapSite {
  readonly name: string;
  readonly host: string;
  readonly port: string;
  readonly ssl: string;
}

/** One occurrence of an alert (absent keys are ''). */
export interface ZapInstance {
  readonly uri: string;
  readonly method: string;
  readonly param: string;
  readonly attack: string;
  readonly evidence: string;
  readonly otherinfo: string;
}

/** One alert of a site (absent keys are ''; numbers are strings in both formats). */
export interface ZapAlert {
  readonly pluginid: string;
  readonly alertRef: string;
  readonly alert: string;
  readonly name: string;
  readonly riskcode: string;
  readonly confidence: string;
  readonly riskdesc: string;
  readonly desc: string;
  readonly solution: string;
  readonly otherinfo: string;
  readonly reference: string;
  readonly cweid: string;
  readonly wascid: string;
  readonly sourceid: string;
  readonly count: string;
  /** XML `<tags><tag><tag>CWE-565</tag><link>…</link></tag></tags>` (2.12+). */
  readonly tags: ReadonlyArray<{ readonly tag: string; readonly link: string }>;
  readonly instances: readonly ZapInstance[];
}

/** The text fields of an alert, the same in the JSON and the XML report. */
export const ALERT_FIELDS = [
  'pluginid',
  'alertRef',
  'alert',
  'name',
  'riskcode',
  'confidence',
  'riskdesc',
  'desc',
  'count',
  'solution',
  'otherinfo',
  'reference',
  'cweid',
  'wascid',
  'sourceid',
] as const satisfies ReadonlyArray<keyof ZapAlert>;

export type AlertField = (typeof ALERT_FIELDS)[number];

/**
 * An alert from a reader of its text fields (absent fields read as ''), its tags and instances:
 * what both report formats build.
 */
export function alertOf(
  field: (name: AlertField) => string,
  tags: ZapAlert['tags'],
  instances: readonly ZapInstance[],
): ZapAlert {
  const texts = Object.fromEntries(ALERT_FIELDS.map((name) => [name, field(name)])) as Record<
    AlertField,
    string
  >;
  return { ...texts, tags, instances };
}

/** Longest text kept per field while reading (ZAP's `desc` texts are a few KB at most). */
export const MAX_ALERT_TEXT = 16_384;
/** Longest text kept per instance field (evidence can be a whole response body). */
export const MAX_INSTANCE_TEXT = 2_048;
/** Instances kept per alert; more are counted and dropped (each kept one is a few KB at most). */
export const MAX_INSTANCES_PER_ALERT = 10_000;

const MAX_DESCRIPTION = 8_000;
const MAX_EVIDENCE = 4_000;
const MAX_EVIDENCE_LINES = 10;
const MAX_RAW_TEXT = 300;
const MAX_RAW_INSTANCES = 10;
const MAX_REFERENCES = 20;

/** `riskcode` to the common scale (FORMATS.md): ZAP has no critical. */
const RISK_SEVERITY: Readonly<Record<string, Severity>> = {
  '0': 'info',
  '1': 'low',
  '2': 'medium',
  '3': 'high',
};

/** `riskdesc` words, used only when `riskcode` is missing or unreadable. */
const RISK_WORDS: Readonly<Record<string, Severity>> = {
  informational: 'info',
  low: 'low',
  medium: 'medium',
  high: 'high',
};

/** ZAP's confidence "0": the alert was marked a false positive. */
const FALSE_POSITIVE = '0';

/**
 * Rules that append a random path segment to the URL they test: 90028 "Insecure HTTP Method"
 * sends `PUT /path/s8uclk08bz` (ten lower-case letters and digits, new on every scan).
 */
const RANDOM_LAST_SEGMENT_RULES: ReadonlySet<string> = new Set(['90028']);
const RANDOM_LAST_SEGMENT = /\/[a-z0-9]{10}(?=[?#]|$)/;

/** Session ids carried in the path (`;jsessionid=6E12…`), new on every visit. */
const PATH_SESSION_ID = /;jsessionid=[^/?#;]*/gi;

const CVE_ID = /CVE-\d{4}-\d{4,}/gi;
const CWE_TAG = /^CWE-(\d{1,6})$/i;

/** `text` cut to `max` characters, with a marker when cut. */
export function capText(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** The severity of an alert: `riskcode`, else the first word of `riskdesc`, else null. */
export function severityOf(alert: Pick<ZapAlert, 'riskcode' | 'riskdesc'>): Severity | null {
  const byCode = RISK_SEVERITY[alert.riskcode.trim()];
  if (byCode !== undefined) {
    return byCode;
  }
  const word = alert.riskdesc.trim().split(/[\s(]/)[0]?.toLowerCase() ?? '';
  return RISK_WORDS[word] ?? null;
}

/**
 * The instance URL without what changes from scan to scan: path session ids, the random segment
 * of rules that add one, and the attacked parameter's value (the payload; some rules randomize
 * it). What stays identifies the place: the same issue on a rescan keeps its URL.
 * @example stableUrl({ uri: 'https://a.example/s?q=%3Cx%3E', param: 'q', attack: '<x>' }, '40012') // 'https://a.example/s?q='
 */
export function stableUrl(
  instance: Pick<ZapInstance, 'uri' | 'param' | 'attack'>,
  pluginid: string,
): string {
  let uri = instance.uri.trim().replace(PATH_SESSION_ID, '');
  if (RANDOM_LAST_SEGMENT_RULES.has(pluginid)) {
    uri = uri.replace(RANDOM_LAST_SEGMENT, '');
  }
  if (instance.attack === '' || instance.param === '' || !uri.includes('?')) {
    return uri;
  }
  try {
    const url = new URL(uri);
    if (!url.searchParams.has(instance.param)) {
      return uri;
    }
    url.searchParams.set(instance.param, '');
    return url.href;
  } catch {
    return uri;
  }
}

function cveIds(texts: readonly string[]): string[] {
  return [
    ...new Set(
      texts.flatMap((text) => Array.from(text.matchAll(CVE_ID), (m) => m[0].toUpperCase())),
    ),
  ];
}

function cweIds(alert: ZapAlert): string[] {
  const ids: string[] = [];
  const cwe = Number.parseInt(alert.cweid.trim(), 10);
  if (Number.isSafeInteger(cwe) && cwe > 0 && /^\d+$/.test(alert.cweid.trim())) {
    ids.push(`CWE-${cwe}`);
  }
  for (const { tag } of alert.tags) {
    const match = CWE_TAG.exec(tag.trim());
    if (match?.[1] !== undefined && Number(match[1]) > 0) {
      ids.push(`CWE-${Number(match[1])}`);
    }
  }
  return [...new Set(ids)];
}

function portOf(site: ZapSite | null, url: URL | null): number | null {
  const port = Number(site?.port.trim() ?? '');
  if (
    site !== null &&
    site.port.trim() !== '' &&
    Number.isInteger(port) &&
    port > 0 &&
    port < 65536
  ) {
    return port;
  }
  if (url === null) {
    return null;
  }
  if (url.port !== '') {
    return Number(url.port);
  }
  return url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : null;
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** A group of instances that make one finding. */
interface InstanceGroup {
  readonly url: string;
  readonly param: string;
  readonly instances: ZapInstance[];
}

function groupInstances(alert: ZapAlert, site: ZapSite | null): InstanceGroup[] {
  if (alert.instances.length === 0) {
    // An alert without listed instances is about the site as a whole.
    return [{ url: site?.name ?? '', param: '', instances: [] }];
  }
  const groups = new Map<string, InstanceGroup>();
  for (const instance of alert.instances) {
    const url = stableUrl(instance, alert.pluginid.trim());
    const param = instance.param.trim();
    const key = JSON.stringify([url, param]);
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, { url, param, instances: [instance] });
    } else {
      group.instances.push(instance);
    }
  }
  return [...groups.values()];
}

function instanceLine(instance: ZapInstance): string {
  const parts = [`${instance.method.trim() || '?'} ${instance.uri.trim()}`];
  if (instance.param.trim() !== '') {
    parts.push(`param: ${capText(instance.param.trim(), 200)}`);
  }
  if (instance.attack !== '') {
    parts.push(`attack: ${capText(instance.attack, 200)}`);
  }
  if (instance.evidence !== '') {
    parts.push(`evidence: ${capText(instance.evidence.trim(), 300)}`);
  }
  return parts.join(' | ');
}

function evidenceOf(alert: ZapAlert, group: InstanceGroup): string | null {
  const lines = group.instances.slice(0, MAX_EVIDENCE_LINES).map(instanceLine);
  if (group.instances.length > MAX_EVIDENCE_LINES) {
    lines.push(`… ${group.instances.length - MAX_EVIDENCE_LINES} more occurrence(s)`);
  }
  const otherinfo =
    group.instances.map((instance) => instance.otherinfo.trim()).find((text) => text !== '') ??
    alert.otherinfo;
  const other = htmlToText(otherinfo);
  if (other !== '') {
    lines.push(`other info: ${other}`);
  }
  const text = lines.join('\n');
  return text === '' ? null : capText(text, MAX_EVIDENCE);
}

function rawInstance(instance: ZapInstance): Record<string, string> {
  return {
    uri: capText(instance.uri.trim(), MAX_RAW_TEXT),
    method: capText(instance.method.trim(), 16),
    param: capText(instance.param.trim(), MAX_RAW_TEXT),
    attack: capText(instance.attack, MAX_RAW_TEXT),
    evidence: capText(instance.evidence, MAX_RAW_TEXT),
  };
}

/** ZAP's id of the alert variant (`10038-1`), else of the rule, else (never in ZAP output) the name. */
function ruleIdOf(alert: ZapAlert): string {
  return alert.alertRef.trim() || alert.pluginid.trim() || alert.alert.trim() || alert.name.trim();
}

function titleOf(alert: ZapAlert, param: string): string {
  const name = alert.alert.trim() || alert.name.trim() || `ZAP alert ${ruleIdOf(alert)}`;
  return param === '' ? name : `${name} (${capText(param, 100)})`;
}

/** Counts of what a report held besides findings, for the warnings. */
interface Tally {
  sites: number;
  alerts: number;
  unreadable: number;
  falsePositives: number;
  unknownRisk: number;
  shortLists: number;
  listedOccurrences: number;
  countedOccurrences: number;
  droppedInstances: number;
}

/**
 * Collects findings from alerts as a reader produces them. Never throws on odd data: missing
 * fields are '' and a finding is still made when the alert has a rule id or a name.
 */
export class ZapFindingCollector {
  private readonly findings: DraftFinding[] = [];
  private readonly tally: Tally = {
    sites: 0,
    alerts: 0,
    unreadable: 0,
    falsePositives: 0,
    unknownRisk: 0,
    shortLists: 0,
    listedOccurrences: 0,
    countedOccurrences: 0,
    droppedInstances: 0,
  };

  /** A `<site>` / `site[]` entry was seen (also one without alerts). */
  addSite(): void {
    this.tally.sites += 1;
  }

  /** Instances a reader dropped beyond MAX_INSTANCES_PER_ALERT. */
  addDroppedInstances(count: number): void {
    this.tally.droppedInstances += count;
  }

  get siteCount(): number {
    return this.tally.sites;
  }

  get alertCount(): number {
    return this.tally.alerts;
  }

  addAlert(site: ZapSite | null, alert: ZapAlert): void {
    this.tally.alerts += 1;
    if ([alert.pluginid, alert.alertRef, alert.alert, alert.name].every((v) => v.trim() === '')) {
      this.tally.unreadable += 1;
      return;
    }
    if (alert.confidence.trim() === FALSE_POSITIVE) {
      this.tally.falsePositives += 1;
      return;
    }
    let severity = severityOf(alert);
    if (severity === null) {
      this.tally.unknownRisk += 1;
      severity = 'info';
    }
    const count = Number.parseInt(alert.count.trim(), 10);
    if (Number.isSafeInteger(count) && count > alert.instances.length) {
      this.tally.shortLists += 1;
      this.tally.listedOccurrences += alert.instances.length;
      this.tally.countedOccurrences += count;
    }
    const texts = [alert.alert, alert.desc, alert.otherinfo, alert.reference];
    const identifiers = { cve: cveIds(texts), cwe: cweIds(alert) };
    const description = htmlToText(alert.desc);
    const remediation = htmlToText(alert.solution);
    const references = [
      ...new Set([...referenceUrls(alert.reference), ...alert.tags.map((t) => t.link.trim())]),
    ]
      .filter((link) => /^https?:\/\//.test(link))
      .slice(0, MAX_REFERENCES);
    for (const group of groupInstances(alert, site)) {
      const url = parseUrl(group.url);
      this.findings.push({
        ruleId: group.param === '' ? ruleIdOf(alert) : `${ruleIdOf(alert)}:${group.param}`,
        title: titleOf(alert, group.param),
        severity,
        toolSeverity: alert.riskcode.trim() || null,
        category: severity === 'info' ? 'informational' : 'vulnerability',
        location: {
          host: site?.host.trim() || url?.hostname.replace(/^\[|\]$/g, '') || null,
          port: portOf(site, url),
          protocol: null,
          url: group.url === '' ? null : group.url,
        },
        identifiers,
        description: description === '' ? null : capText(description, MAX_DESCRIPTION),
        evidence: evidenceOf(alert, group),
        remediation: remediation === '' ? null : capText(remediation, MAX_DESCRIPTION),
        references,
        raw: {
          site: site === null ? null : capText(site.name, MAX_RAW_TEXT),
          pluginid: alert.pluginid.trim(),
          alertRef: alert.alertRef.trim() || null,
          alert: capText(alert.alert.trim(), MAX_RAW_TEXT),
          riskcode: alert.riskcode.trim(),
          confidence: alert.confidence.trim(),
          riskdesc: capText(alert.riskdesc.trim(), 100),
          cweid: alert.cweid.trim() || null,
          wascid: alert.wascid.trim() || null,
          sourceid: alert.sourceid.trim() || null,
          count: Number.isSafeInteger(count) ? count : null,
          occurrences: group.instances.length,
          instances: group.instances.slice(0, MAX_RAW_INSTANCES).map(rawInstance),
          tags: alert.tags.slice(0, MAX_REFERENCES).map((t) => capText(t.tag.trim(), 100)),
        },
      });
    }
  }

  /**
   * The findings, with the reader's warnings first and the report-level ones after them.
   * `completeReport`: a whole ZAP report was read (then no site at all means ZAP reached nothing).
   */
  result(
    readerWarnings: readonly string[],
    completeReport: boolean,
  ): { findings: DraftFinding[]; warnings: string[] } {
    const t = this.tally;
    const warnings: string[] = [];
    if (completeReport && t.sites === 0 && t.alerts === 0) {
      warnings.push('the ZAP report lists no site: ZAP reached nothing of the target');
    }
    if (t.unreadable > 0) {
      warnings.push(`${t.unreadable} alert(s) had neither a rule id nor a name and were skipped`);
    }
    if (t.falsePositives > 0) {
      warnings.push(
        `${t.falsePositives} alert(s) marked as false positive by ZAP (confidence 0) are not reported`,
      );
    }
    if (t.unknownRisk > 0) {
      warnings.push(`${t.unknownRisk} alert(s) had no readable riskcode and are reported as info`);
    }
    if (t.shortLists > 0) {
      warnings.push(
        `${t.shortLists} alert(s) list fewer instances than their count (${t.listedOccurrences} of ${t.countedOccurrences} occurrences): findings cover the listed instances`,
      );
    }
    if (t.droppedInstances > 0) {
      warnings.push(
        `${t.droppedInstances} instance(s) beyond ${MAX_INSTANCES_PER_ALERT} per alert were not read`,
      );
    }
    return { findings: this.findings, warnings: [...readerWarnings, ...warnings] };
  }
}
