/**
 * How sure the engine that reported a finding is of it (README, "Correlation", confidence
 * table). Correlation uses it to pick the primary source of a merged finding: the most confident
 * one, whose severity the merged finding shows. The rating comes from what the tool itself says
 * (ZAP's alert confidence) or, for tools that rate nothing, from how the finding was made:
 * exploited (sqlmap, a nuclei out-of-band callback), observed (an open port, a template match),
 * or guessed from a version or a name (vulners, nikto's outdated-software and vulnerability
 * claims).
 *
 * Pure and cheap (a few property reads per finding); it never throws, whatever `raw` holds.
 */
import type { DraftFinding } from '../../domain/findings/finding.js';
import { isWeaknessCategory } from '../../domain/findings/weakness-severity.js';
import { rawField, rawText } from './raw-fields.js';
import type { Confidence, SourceFinding } from './types.js';

/** What a rating reads: the engine, the (normalized or engine's own) category and the raw record. */
type Rated = Pick<SourceFinding, 'category' | 'raw'> & { readonly engine: string };

/**
 * ZAP's alert confidence (`confidence` in its report): 0 false positive, 1 low, 2 medium,
 * 3 high, 4 user confirmed. The parser drops confidence 0; it is rated low should it appear.
 */
const ZAP_CONFIDENCE: ReadonlyMap<string, Confidence> = new Map([
  ['0', 'low'],
  ['1', 'low'],
  ['2', 'medium'],
  ['3', 'high'],
  ['4', 'confirmed'],
]);

/** Rating of an engine's finding; each engine has one rule (the README's table). */
type Rater = (finding: Rated) => Confidence;

const RATERS: ReadonlyMap<string, Rater> = new Map<string, Rater>([
  // sqlmap reports only injection points it exploited (with working payloads).
  ['sqlmap', (f) => (f.category === 'sql-injection' ? 'confirmed' : 'high')],
  // ZAP's own confidence; a report without one is rated as ZAP's default (medium).
  ['zap', (f) => ZAP_CONFIDENCE.get(rawText(f.raw, 'confidence') ?? '') ?? 'medium'],
  // Vulnerabilities and misconfigurations were found with a payload or seen in the response;
  // anomalies (a 500 while injecting) and additionals (technologies, methods) only hint.
  ['wapiti', (f) => (f.category === 'anomaly' || f.category === 'information' ? 'medium' : 'high')],
  // A template match is an observation; an out-of-band callback (the target called back) and a
  // default login that worked are exploitation.
  [
    'nuclei',
    (f) =>
      f.category === 'default-login' || isObject(rawField(f.raw, 'interaction'))
        ? 'confirmed'
        : 'high',
  ],
  // nikto matches on presence: its vulnerability and outdated-software claims come from a path
  // or a banner version, not from exploitation; headers, files and methods it saw are likelier.
  // (A claim with a classified CWE is stored under its weakness class, `xss` …, instead.)
  [
    'nikto',
    (f) =>
      f.category === 'vulnerability' ||
      f.category === 'outdated-software' ||
      isWeaknessCategory(f.category)
        ? 'low'
        : 'medium',
  ],
  // An open port answered; vulners entries are matched on product and version only (backports
  // make them wrong), and the OS is a guess with an accuracy below 100 % more often than not.
  ['nmap', (f) => (f.category === 'open-port' ? 'high' : 'medium')],
  // Installed package versions matched against advisories.
  ['trivy', () => 'high'],
  // Names from search engines and public sources: some are stale or never resolved.
  ['harvester', () => 'medium'],
  ['sublist3r', () => 'medium'],
]);

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The confidence of one source finding; `medium` for an engine without a rule.
 * @example confidenceOf({ ...zapFinding, raw: { confidence: '3' } }) // 'high'
 */
export function confidenceOf(finding: Rated): Confidence {
  return RATERS.get(finding.engine)?.(finding) ?? 'medium';
}

/**
 * Whether an engine's draft was confirmed by exploitation (its confidence is `confirmed`): what
 * `finalizeFindings` needs to pick the confirmed severity of a weakness class.
 * @example confirmedBy('sqlmap')(sqlInjectionDraft) // true
 */
export function confirmedBy(engine: string): (draft: DraftFinding) => boolean {
  return (draft) =>
    confidenceOf({ engine, category: draft.category, raw: draft.raw }) === 'confirmed';
}
