/**
 * One nuclei result object (a JSONL line or an element of a `-json-export` array), read into a
 * typed record whatever the nuclei version wrote: v3 keys (`template-id`, `matched-at`,
 * `matcher-name`, `extracted-results`) and v2 keys (`templateID`, `matched`, `matcher_name`,
 * `extracted_results`); `author`, `tags` and `reference` as lists or comma/newline strings.
 * Every string is capped here, so nothing past this module holds a 150 KB request or response.
 */

/** Longest kept value of a short field (ids, names, URLs, hosts). */
export const MAX_FIELD_CHARS = 2048;
/** Longest kept description, impact or remediation text. */
export const MAX_TEXT_CHARS = 8192;
/** Longest kept excerpt of the request and of the response. */
export const MAX_EXCERPT_CHARS = 1024;
/** At most this many items of any list (extracted results, tags, references). */
export const MAX_LIST_ITEMS = 50;

export interface NucleiInteraction {
  readonly protocol: string | null;
  readonly remoteAddress: string | null;
}

/** What the parser uses of one result, every string capped. */
export interface NucleiResult {
  readonly templateId: string;
  /** `template` (v3: path inside nuclei-templates, e.g. `http/cves/2021/CVE-2021-44228.yaml`). */
  readonly templatePath: string | null;
  readonly templateUrl: string | null;
  readonly name: string | null;
  /** `info.severity` as written (trimmed); null when missing. */
  readonly severity: string | null;
  readonly description: string | null;
  readonly impact: string | null;
  readonly remediation: string | null;
  readonly references: readonly string[];
  readonly tags: readonly string[];
  readonly cveIds: readonly string[];
  readonly cweIds: readonly string[];
  readonly cvssScore: number | null;
  readonly cvssMetrics: string | null;
  readonly cpe: string | null;
  /** Protocol of the template: http, dns, ssl, network, javascript … */
  readonly type: string | null;
  readonly host: string | null;
  readonly port: string | null;
  readonly scheme: string | null;
  readonly url: string | null;
  readonly matchedAt: string | null;
  readonly matcherName: string | null;
  readonly extractorName: string | null;
  readonly extractedResults: readonly string[];
  readonly ip: string | null;
  readonly timestamp: string | null;
  /** False only on the failure events `-matcher-status` adds; true when absent (v2). */
  readonly matcherStatus: boolean;
  /** nuclei's `error` field: set on failure events, never on a finding. */
  readonly error: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly interaction: NucleiInteraction | null;
  readonly request: string | null;
  readonly response: string | null;
}

type JsonObject = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `text` cut to `max` characters, marked with an ellipsis when cut. */
export function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** A trimmed, capped string, or null for anything else or blank. Numbers become text (v2 ports). */
function text(value: unknown, max = MAX_FIELD_CHARS): string | null {
  const raw =
    typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
  const trimmed = raw?.trim() ?? '';
  return trimmed === '' ? null : cap(trimmed, max);
}

/** The first present key of `keys` (v3 spelling first, then v2). */
function pick(record: JsonObject, ...keys: string[]): unknown {
  for (const key of keys) {
    if (record[key] !== undefined && record[key] !== null) {
      return record[key];
    }
  }
  return undefined;
}

/**
 * A list from a JSON list, a comma-separated string (v2 `author`, `tags`), or null; items trimmed,
 * blank ones dropped, duplicates removed, at most MAX_LIST_ITEMS.
 */
function list(value: unknown, separator: RegExp = /,/): string[] {
  const items = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value.split(separator)
      : [];
  const kept = items.map((item) => text(item)).filter((item): item is string => item !== null);
  return [...new Set(kept)].slice(0, MAX_LIST_ITEMS);
}

/**
 * References: a list, a single URL, or (v2) YAML list text `"- http://a\n- http://b\n"`. Only
 * http(s) URLs are kept.
 */
function references(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  const urls = items.flatMap((item) =>
    typeof item === 'string'
      ? item.split(/\s+/).filter((word) => /^https?:\/\/\S+$/i.test(word))
      : [],
  );
  return [...new Set(urls.map((url) => cap(url, MAX_FIELD_CHARS)))].slice(0, MAX_LIST_ITEMS);
}

const CVE_ID = /^CVE-[0-9]{4}-[0-9]{4,}$/;

/** `cve-2021-44228` → `CVE-2021-44228`; anything not a CVE id is dropped. */
function cveIds(value: unknown): string[] {
  return list(value)
    .map((id) => id.toUpperCase())
    .filter((id) => CVE_ID.test(id));
}

/** `cwe-798`, `CWE-798` or `798` → `CWE-798`; anything else is dropped. */
function cweIds(value: unknown): string[] {
  return list(value)
    .map((id) => /^(?:cwe-)?([0-9]{1,6})$/i.exec(id)?.[1])
    .filter((digits): digits is string => digits !== undefined)
    .map((digits) => `CWE-${Number(digits)}`);
}

function score(value: unknown): number | null {
  const number = typeof value === 'number' ? value : Number(text(value) ?? Number.NaN);
  return Number.isFinite(number) && number >= 0 && number <= 10 ? number : null;
}

/** `meta` (v3: values a template extracted, such as the default credentials that worked). */
function metadata(value: unknown): Record<string, string> {
  if (!isObject(value)) {
    return {};
  }
  const entries = Object.entries(value)
    .slice(0, MAX_LIST_ITEMS)
    .map(([key, item]) => [cap(key, 100), text(item, 200)] as const)
    .filter((entry): entry is readonly [string, string] => entry[1] !== null);
  return Object.fromEntries(entries);
}

function interaction(value: unknown): NucleiInteraction | null {
  if (!isObject(value)) {
    return null;
  }
  return {
    protocol: text(value.protocol, 32),
    remoteAddress: text(value['remote-address'], 64),
  };
}

/**
 * The record for one parsed JSON value, or a reason why it is not a nuclei result (not an object,
 * no template id). Never throws.
 */
export function readNucleiResult(value: unknown): NucleiResult | { readonly problem: string } {
  if (!isObject(value)) {
    return { problem: 'not a JSON object' };
  }
  const templateId = text(pick(value, 'template-id', 'templateID'), 256);
  if (templateId === null) {
    return { problem: 'no template-id' };
  }
  const info = isObject(value.info) ? value.info : {};
  const classification = isObject(info.classification) ? info.classification : {};
  const templateCve = CVE_ID.test(templateId.toUpperCase()) ? [templateId.toUpperCase()] : [];
  return {
    templateId,
    templatePath: text(value.template),
    templateUrl: text(value['template-url']),
    name: text(info.name, 512),
    severity: text(info.severity, 32),
    description: text(info.description, MAX_TEXT_CHARS),
    impact: text(info.impact, MAX_TEXT_CHARS),
    remediation: text(info.remediation, MAX_TEXT_CHARS),
    references: references(info.reference),
    tags: list(info.tags),
    cveIds: [...new Set([...cveIds(classification['cve-id']), ...templateCve])],
    cweIds: [...new Set(cweIds(classification['cwe-id']))],
    cvssScore: score(classification['cvss-score']),
    cvssMetrics: text(classification['cvss-metrics'], 256),
    cpe: text(classification.cpe, 256),
    type: text(value.type, 32),
    host: text(value.host),
    port: text(value.port, 16),
    scheme: text(value.scheme, 16),
    url: text(value.url),
    matchedAt: text(pick(value, 'matched-at', 'matched')),
    matcherName: text(pick(value, 'matcher-name', 'matcher_name'), 256),
    extractorName: text(pick(value, 'extractor-name', 'extractor_name'), 256),
    extractedResults: list(pick(value, 'extracted-results', 'extracted_results'), /$^/).map(
      (item) => cap(item, 256),
    ),
    ip: text(value.ip, 64),
    timestamp: text(value.timestamp, 64),
    matcherStatus: value['matcher-status'] !== false,
    error: text(value.error, 512),
    metadata: metadata(value.meta),
    interaction: interaction(value.interaction),
    request: text(value.request, MAX_EXCERPT_CHARS),
    response: text(value.response, MAX_EXCERPT_CHARS),
  };
}
