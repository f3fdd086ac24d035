/**
 * What the JSON and the XML readers both produce from a wapiti report: the few parts a finding
 * needs, with long texts already cut, so the findings builder does not care about the format.
 */

/** The three lists of a report. Only `vulnerabilities` are weaknesses; see findings.ts. */
export type ReportSection = 'vulnerabilities' | 'anomalies' | 'additionals';

export const REPORT_SECTIONS: readonly ReportSection[] = [
  'vulnerabilities',
  'anomalies',
  'additionals',
];

export interface ReportReference {
  readonly title: string;
  readonly url: string;
}

/** A category's text (`classifications` in JSON, the `<vulnerability>` element's children in XML). */
export interface Classification {
  readonly description: string | null;
  readonly solution: string | null;
  readonly references: readonly ReportReference[];
}

/** One entry of a category's list. */
export interface ReportEntry {
  readonly section: ReportSection;
  /** The category name, e.g. `SQL Injection`. */
  readonly category: string;
  readonly method: string;
  /** The resource path from the host's root (`/search`), without the query. */
  readonly path: string;
  readonly info: string;
  /** The level as written (`4`, `"1"`), null when absent or not a number. */
  readonly level: number | null;
  /** The injected parameter; '' when none (`QUERY_STRING` for the query string as a whole). */
  readonly parameter: string;
  readonly httpRequest: string;
  readonly curlCommand: string;
  /** 3.1 and later only. */
  readonly module: string | null;
  readonly wstg: readonly string[];
}

/** `infos` (JSON) or `report_infos` (XML). */
export interface ReportInfos {
  readonly target: string | null;
  readonly version: string | null;
  readonly scope: string | null;
}

export interface ReportModel {
  readonly classifications: Map<string, Classification>;
  readonly entries: ReportEntry[];
  infos: ReportInfos | null;
}

export function emptyModel(): ReportModel {
  return { classifications: new Map(), entries: [], infos: null };
}

/** Texts are cut here, before anything is kept: a finding never needs more. */
export const MAX_TEXT = 2000;

/** A string cut to `max` characters (with an ellipsis), or '' for anything but a string. */
export function cut(value: unknown, max = MAX_TEXT): string {
  if (typeof value !== 'string') {
    return '';
  }
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

function textOrNull(value: unknown): string | null {
  const text = cut(value, 8000).trim();
  return text === '' ? null : text;
}

/** A level from JSON (a number) or XML (text); anything else is null. */
export function levelOf(value: unknown): number | null {
  const level =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)
        ? Number(value)
        : Number.NaN;
  return Number.isSafeInteger(level) ? level : null;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON entry object as a `ReportEntry`; null when it is not an object. */
export function entryFromJson(
  section: ReportSection,
  category: string,
  value: unknown,
): ReportEntry | null {
  if (!isRecord(value)) {
    return null;
  }
  const parameter = value.parameter;
  return {
    section,
    category: cut(category, 200),
    method: cut(value.method, 16).toUpperCase() || 'GET',
    path: cut(value.path),
    info: cut(value.info),
    level: levelOf(value.level),
    parameter: typeof parameter === 'string' ? cut(parameter, 200) : '',
    httpRequest: cut(value.http_request),
    curlCommand: cut(value.curl_command),
    module: typeof value.module === 'string' ? cut(value.module, 64) : null,
    wstg: Array.isArray(value.wstg)
      ? value.wstg.filter((id): id is string => typeof id === 'string').map((id) => cut(id, 32))
      : [],
  };
}

/** A JSON classification (`{ desc, sol, ref: { title: url } }`). */
export function classificationFromJson(value: unknown): Classification {
  const record = isRecord(value) ? value : {};
  const refs = isRecord(record.ref) ? record.ref : {};
  return {
    description: textOrNull(record.desc),
    solution: textOrNull(record.sol),
    references: Object.entries(refs)
      .filter((pair): pair is [string, string] => typeof pair[1] === 'string')
      .map(([title, url]) => ({ title: cut(title, 300), url: cut(url, 500) })),
  };
}

/** JSON `infos`. */
export function infosFromJson(value: unknown): ReportInfos {
  const record = isRecord(value) ? value : {};
  return {
    target: textOrNull(record.target),
    version: textOrNull(record.version),
    scope: textOrNull(record.scope),
  };
}
