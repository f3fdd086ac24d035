/**
 * Ordering of the five severities. The rank is the position in `SEVERITIES`, so the scale has one
 * definition and adding a level there cannot leave this file out of date.
 */
import { SEVERITIES, type Severity } from './finding.js';

/**
 * The rank of a severity: 0 for `critical` (most severe) up to 4 for `info`.
 * @example severityRank('critical') // 0
 */
export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

/**
 * A comparator that sorts the most severe first (`critical` before `high` … before `info`).
 * @example ['low', 'critical'].sort(compareSeverity) // ['critical', 'low']
 */
export function compareSeverity(a: Severity, b: Severity): number {
  return severityRank(a) - severityRank(b);
}

/**
 * The more severe of two severities (`a` when they are equal).
 * @example maxSeverity('low', 'high') // 'high'
 */
export function maxSeverity(a: Severity, b: Severity): Severity {
  return compareSeverity(b, a) < 0 ? b : a;
}
