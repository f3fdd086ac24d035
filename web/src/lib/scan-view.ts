/**
 * What the scan detail page shows, decided without the DOM: durations, findings summaries, the
 * engines the findings filter offers (the filters themselves are the issues list's:
 * sharedFilterFrom), a sentinel scan's risk factors, and export file names.
 */

export const LIVE_STATUSES: readonly string[] = ['queued', 'running'];

export function isLive(status: string): boolean {
  return LIVE_STATUSES.includes(status);
}

/**
 * A duration in words: `850 ms`, `42 s`, `3 min 5 s`, `2 h 7 min`.
 * @example formatDuration(185_000) // '3 min 5 s'
 */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) {
    return '—';
  }
  if (ms < 1000) {
    return `${Math.round(ms)} ms`;
  }
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) {
    return `${seconds} s`;
  }
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    const rest = seconds % 60;
    return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
  }
  const hours = Math.floor(minutes / 60);
  const restMinutes = minutes % 60;
  return restMinutes === 0 ? `${hours} h` : `${hours} h ${restMinutes} min`;
}

const SEVERITY_ORDER = ['critical', 'high', 'medium', 'low', 'info'] as const;

/**
 * A findings summary as text, most severe first, without the zeros.
 * @example summaryText({ critical: 0, high: 2, medium: 0, low: 1, info: 0 }) // '2 high, 1 low'
 */
export function summaryText(summary: Readonly<Record<string, number>>): string {
  const parts = SEVERITY_ORDER.filter((severity) => (summary[severity] ?? 0) > 0).map(
    (severity) => `${summary[severity]} ${severity}`,
  );
  return parts.length === 0 ? 'no findings' : parts.join(', ');
}

/**
 * The engines a scan's findings can name, sorted: a sentinel scan's children's engines, else the
 * scan's own; with `current` (the filter in the address) added, so the select can show it.
 * @example scanEngines({ scanType: 'sentinel', sentinel: { children: [{ engine: 'zap' }, { engine: 'nmap' }] } }) // ['nmap', 'zap']
 */
export function scanEngines(
  scan: {
    readonly scanType: string;
    readonly sentinel?: { readonly children: readonly { readonly engine: string }[] };
  },
  current: string | undefined = undefined,
): string[] {
  const own =
    scan.sentinel === undefined
      ? [scan.scanType]
      : scan.sentinel.children.map((child) => child.engine);
  return [...new Set([...own, ...(current === undefined ? [] : [current])])].sort();
}

export interface RiskFactor {
  readonly factor: string;
  readonly points: number;
  readonly detail: string;
}

/** Risk factors, the heaviest first (then by name, so the order is stable). */
export function sortedRiskFactors(factors: readonly RiskFactor[] | null | undefined): RiskFactor[] {
  return [...(factors ?? [])].sort(
    (a, b) => b.points - a.points || a.factor.localeCompare(b.factor),
  );
}

/** The export formats GET /api/v1/scans/{id}/results offers as a file or the JSON envelope. */
export const EXPORT_FORMATS = ['json', 'sarif', 'csv', 'defectdojo'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const EXTENSION: Readonly<Record<ExportFormat, string>> = {
  json: 'json',
  sarif: 'sarif',
  csv: 'csv',
  defectdojo: 'defectdojo.json',
};

/**
 * The file name of a download: the answer's Content-Disposition filename when it gives a safe
 * one, else `rampart-scan-<id>.<extension>`.
 * @example exportFilename('attachment; filename="rampart-scan-1.sarif"', '1', 'sarif') // 'rampart-scan-1.sarif'
 */
export function exportFilename(
  contentDisposition: string | null,
  scanId: string,
  format: ExportFormat,
): string {
  const named = /filename="([^"/\\]+)"/.exec(contentDisposition ?? '')?.[1];
  return named ?? `rampart-scan-${scanId}.${EXTENSION[format]}`;
}

/**
 * Where a finding is, in one line: its URL, else `host:port/protocol`, else the host.
 * @example locationText({ host: '10.0.0.1', port: 22, protocol: 'tcp', url: null }) // '10.0.0.1:22/tcp'
 */
export function locationText(location: {
  readonly host: string | null;
  readonly port: number | null;
  readonly protocol: string | null;
  readonly url: string | null;
}): string {
  if (location.url !== null) {
    return location.url;
  }
  if (location.host !== null && location.port !== null) {
    return `${location.host}:${location.port}${location.protocol === null ? '' : `/${location.protocol}`}`;
  }
  return location.host ?? '—';
}
