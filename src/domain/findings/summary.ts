/**
 * Per-severity counts and the aggregated risk score shown with scan results (`summary`,
 * `riskScore`) and on the scan detail record (`findingsSummary`).
 */
import { type FindingsSummary, SEVERITIES, type Severity } from './finding.js';

/**
 * How much one finding of each severity contributes to the risk score: the share of the remaining
 * distance to 100 it closes. `info` findings are observations (an open port, a subdomain) and add
 * nothing.
 */
export const RISK_WEIGHTS: Readonly<Record<Severity, number>> = {
  critical: 0.4,
  high: 0.2,
  medium: 0.05,
  low: 0.01,
  info: 0,
};

/**
 * A summary with every severity at zero.
 * @example emptySummary() // { critical: 0, high: 0, medium: 0, low: 0, info: 0 }
 */
export function emptySummary(): FindingsSummary {
  return { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
}

/**
 * Counts findings per severity. All five keys are always present, zeros included, in the order
 * of `SEVERITIES`.
 * @example summarizeFindings([{ severity: 'high' }, { severity: 'high' }])
 *   // { critical: 0, high: 2, medium: 0, low: 0, info: 0 }
 */
export function summarizeFindings(findings: readonly { severity: Severity }[]): FindingsSummary {
  const summary = emptySummary();
  for (const finding of findings) {
    summary[finding.severity] += 1;
  }
  return summary;
}

/**
 * The aggregated risk score, an integer from 0 to 100:
 *
 *     riskScore = round(100 × (1 − Π over severities s of (1 − w_s) ^ count_s))
 *
 * with the weights of `RISK_WEIGHTS` (critical 0.4, high 0.2, medium 0.05, low 0.01, info 0).
 * Each finding closes its weight's share of the distance that is left to 100, so the score grows
 * with every finding but saturates: it approaches 100 and never exceeds it, and a pile of low
 * findings cannot outweigh a critical one as quickly as a plain sum would.
 *
 * Worked examples:
 * - one critical and one high: 1 − 0.6 × 0.8 = 0.52 → **52**;
 * - two high and three medium: 1 − 0.8² × 0.95³ = 1 − 0.64 × 0.857375 = 0.45128 → **45**.
 *
 * No findings (or only `info`) → 0; one critical → 40; 100 lows → 63; about 460 lows or more
 * round to 100. Counts that are negative or NaN are treated as 0.
 */
export function riskScore(summary: FindingsSummary): number {
  let remaining = 1;
  for (const severity of SEVERITIES) {
    const count = summary[severity];
    // `> 0` is false for NaN, so a corrupt count adds nothing rather than poisoning the score.
    if (count > 0) {
      remaining *= (1 - RISK_WEIGHTS[severity]) ** count;
    }
  }
  // The clamp only guards against floating-point residue; the formula itself stays in [0, 1].
  return Math.min(100, Math.max(0, Math.round(100 * (1 - remaining))));
}
