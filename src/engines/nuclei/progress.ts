/**
 * Progress from nuclei's statistics (`-stats -sj -si N`, printed on stderr). With `-sj` each
 * statistics line is one JSON object whose values are all strings (nuclei 3
 * `pkg/progress/progress.go`, `metricsMap`; Go's encoder sorts the keys):
 *
 *     {"duration":"0:00:04","errors":"0","hosts":"1","matched":"2","percent":"42","requests":"420",
 *      "rps":"105","startedAt":"2024-05-02T10:00:00.1Z","templates":"310","total":"1000"}
 *
 * `percent` is `requests * 100 / total` cut to an integer. Without `-sj` the same numbers come as
 * `[0:00:04] | Templates: 310 | Hosts: 1 | RPS: 105 | Matched: 2 | Errors: 0 | Requests: 420/1000 (42%)`,
 * which is read too. `total` is nuclei's estimate of the requests to send: it can be 0 before the
 * templates are loaded (then `percent` is the result of a division by zero) and `requests` can pass
 * it (retries, redirects), or stop short of it (failed requests are not counted, nuclei #3630).
 */

/** Longest line looked at: a statistics line is about 200 characters. */
const MAX_STATS_LINE = 4096;

const TEXT_STATS = /\|\s*Requests:\s*(\d+)\/(\d+)\s*\((\d+)%\)/;

function count(value: unknown): number | null {
  const text = typeof value === 'number' ? String(value) : value;
  return typeof text === 'string' && /^\d{1,19}$/.test(text) ? Number(text) : null;
}

/** requests/total as 0..99, or null when total is unknown or zero. */
function fromCounts(requests: number | null, total: number | null): number | null {
  if (requests === null || total === null || total === 0) {
    return null;
  }
  return Math.min(99, Math.floor((requests * 100) / total));
}

function fromJson(line: string): number | null {
  let stats: unknown;
  try {
    stats = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof stats !== 'object' || stats === null || Array.isArray(stats)) {
    return null;
  }
  const fields = stats as Readonly<Record<string, unknown>>;
  // A statistics object, not some other JSON (a finding on the wrong stream): it has all three.
  if (!('templates' in fields && 'requests' in fields && 'total' in fields)) {
    return null;
  }
  const total = count(fields.total);
  const percent = count(fields.percent);
  if (total === null || total === 0) {
    return null;
  }
  return percent === null
    ? fromCounts(count(fields.requests), total)
    : Math.min(99, Math.max(0, percent));
}

/**
 * The scan's progress (an integer 0..99) from one stderr line of nuclei, or null for any other
 * line. Never 100: only completion is. The caller keeps the highest value seen.
 * @example parseNucleiProgress('{"percent":"42","requests":"420","templates":"310","total":"1000"}') // 42
 */
export function parseNucleiProgress(line: string): number | null {
  const trimmed = line.trim();
  if (trimmed.length > MAX_STATS_LINE) {
    return null;
  }
  if (trimmed.startsWith('{')) {
    return fromJson(trimmed);
  }
  const match = TEXT_STATS.exec(trimmed);
  return match === null ? null : fromCounts(count(match[1]), count(match[2]));
}
