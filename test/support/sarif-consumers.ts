/**
 * What two consumers make of a SARIF log, transcribed from their documentation and code, so tests
 * can show the mapping they apply to ours:
 *
 * - DefectDojo's SARIF parser (`dojo/tools/sarif/parser.py`, scan type "SARIF"): severity from the
 *   result's `level` (note → Info, warning → Medium, error → High, anything else → Medium),
 *   replaced by the rule's `properties["security-severity"]` when present (≥ 9 Critical, ≥ 7 High,
 *   ≥ 4 Medium, > 0 Low, else Info); `file_path` from the first location's physical
 *   `artifactLocation.uri`; `unique_id_from_tool` from `partialFingerprints` (`method:value`, the
 *   method being the key's part before `/vN`); `vuln_id_from_tool` the rule id; the CWE the last
 *   `CWE-n` among the rule's tags, then the result's `properties.cwe`, which it reads as one
 *   string (Python's `re.search` raises on a list, and the whole import fails).
 * - GitHub code scanning: a rule tagged `security` with a `security-severity` shows a security
 *   severity: over 9.0 critical, 7.0 to 8.9 high, 4.0 to 6.9 medium, 3.9 or less low; without
 *   them, only the result's level (error, warning, note).
 */

type Json = Record<string, unknown>;

export type DefectDojoSeverity = 'Critical' | 'High' | 'Medium' | 'Low' | 'Info';

export interface DefectDojoFinding {
  readonly severity: DefectDojoSeverity;
  readonly cvssv3Score: number | null;
  readonly filePath: string | null;
  readonly uniqueIdFromTool: string | null;
  readonly vulnIdFromTool: string | null;
  readonly cwe: number | null;
}

function object(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Json)
    : {};
}

/** DefectDojo's `cvss_to_severity`. */
export function defectDojoCvssSeverity(cvss: number): DefectDojoSeverity {
  if (cvss >= 9) {
    return 'Critical';
  }
  if (cvss >= 7) {
    return 'High';
  }
  if (cvss >= 4) {
    return 'Medium';
  }
  return cvss > 0 ? 'Low' : 'Info';
}

/** DefectDojo's `get_severity`: the level, else the rule's default level. */
function levelSeverity(result: Json, rule: Json | undefined): DefectDojoSeverity {
  const level = result.level ?? object(rule?.defaultConfiguration).level;
  return level === 'note'
    ? 'Info'
    : level === 'warning'
      ? 'Medium'
      : level === 'error'
        ? 'High'
        : 'Medium';
}

/** The last `CWE-n` among `values` (DefectDojo's `search_cwe` over each). */
function lastCwe(values: readonly unknown[]): number | null {
  let found: number | null = null;
  for (const value of values) {
    if (typeof value !== 'string') {
      throw new TypeError('expected string or bytes-like object (DefectDojo: re.search)');
    }
    const match = /cwe-(\d+)/i.exec(value);
    if (match) {
      found = Number(match[1]);
    }
  }
  return found;
}

/** DefectDojo's `get_fingerprints_hashes` and the `unique_id_from_tool` it builds from them. */
function uniqueId(partialFingerprints: Json): string | null {
  const methods = new Map<string, { version: number; value: unknown }>();
  for (const [key, value] of Object.entries(partialFingerprints)) {
    const parts = key.split('/');
    const method = parts.length > 1 ? (parts[parts.length - 2] ?? key) : key;
    const version = parts.length > 1 ? Number((parts[parts.length - 1] ?? '').replace('v', '')) : 0;
    const known = methods.get(method);
    if (known === undefined || known.version < version) {
      methods.set(method, { version, value });
    }
  }
  if (methods.size === 0) {
    return null;
  }
  return [...methods.keys()]
    .sort()
    .map((method) => `${method}:${String(methods.get(method)?.value)}`)
    .join('|');
}

/** The findings DefectDojo's SARIF import makes of a log (one run assumed; `kind` fail only). */
export function defectDojoFindings(log: unknown): DefectDojoFinding[] {
  const runs = object(log).runs as unknown[];
  const run = object(runs[0]);
  const rules = new Map<string, Json>();
  for (const rule of (object(object(run.tool).driver).rules ?? []) as unknown[]) {
    rules.set(String(object(rule).id), object(rule));
  }
  return ((run.results ?? []) as unknown[])
    .map(object)
    .filter((result) => (result.kind ?? 'fail') === 'fail')
    .map((result) => {
      const rule = rules.get(String(result.ruleId));
      const location = object(((result.locations ?? []) as unknown[])[0]);
      const physical = object(location.physicalLocation);
      let severity = levelSeverity(result, rule);
      let cvssv3Score: number | null = null;
      let cwe = rule === undefined ? null : lastCwe((object(rule.properties).tags ?? []) as []);
      const score = object(rule?.properties)['security-severity'];
      if (score !== undefined) {
        cvssv3Score = Number(score);
        severity = defectDojoCvssSeverity(cvssv3Score);
      }
      const resultProperties = object(result.properties);
      if ('cwe' in resultProperties) {
        cwe = lastCwe([resultProperties.cwe]) ?? cwe;
      }
      return {
        severity,
        cvssv3Score,
        filePath:
          'physicalLocation' in location ? String(object(physical.artifactLocation).uri) : null,
        uniqueIdFromTool:
          result.partialFingerprints === undefined
            ? null
            : uniqueId(object(result.partialFingerprints)),
        vulnIdFromTool: result.ruleId === undefined ? null : String(result.ruleId),
        cwe,
      };
    });
}

export type GitHubSecuritySeverity = 'critical' | 'high' | 'medium' | 'low';

/** The security severity GitHub shows for a rule, or null when it shows the level only. */
export function gitHubSecuritySeverity(rule: unknown): GitHubSecuritySeverity | null {
  const properties = object(object(rule).properties);
  const tags = (properties.tags ?? []) as unknown[];
  const score = properties['security-severity'];
  if (!tags.includes('security') || score === undefined) {
    return null;
  }
  const value = Number(score);
  if (value > 9.0) {
    return 'critical';
  }
  if (value >= 7.0) {
    return 'high';
  }
  return value >= 4.0 ? 'medium' : 'low';
}
