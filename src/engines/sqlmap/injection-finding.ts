/**
 * One sqlmap injection point to its finding: `high`, CWE-89, identified by (place, parameter).
 * Pure; the evidence lists the techniques as the log gave them (type, title, payload) or as the
 * CSV's letters, then the fingerprint lines, databases and sqlmap's note.
 */
import type { DraftFinding, FindingLocation } from '../../domain/findings/finding.js';
import type { ScanTarget } from '../../domain/targets/target.js';
import { type InjectionPoint, MAX_NAME_CHARS } from './injection-points.js';

const REMEDIATION =
  'Pass the value to the database as a bound parameter (a prepared statement or parameterized ' +
  'query) instead of building SQL text from it. Where user input has to choose a part of the ' +
  'query structure (a column to sort by, a table), map it through an allow list. Run the ' +
  'application with a database account that has only the privileges it needs.';

const REFERENCES = [
  'https://cwe.mitre.org/data/definitions/89.html',
  'https://cheatsheetseries.owasp.org/cheatsheets/SQL_Injection_Prevention_Cheat_Sheet.html',
];

/** Host, port and URL of a finding at `url`; the port is the scheme's default when not given. */
function locationOf(url: string, fallbackHost: string | null): FindingLocation {
  try {
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
    const defaultPort =
      parsed.protocol === 'https:' ? 443 : parsed.protocol === 'http:' ? 80 : null;
    const port = parsed.port === '' ? defaultPort : Number(parsed.port);
    return { host: host === '' ? fallbackHost : host, port, protocol: null, url };
  } catch {
    return { host: fallbackHost, port: null, protocol: null, url };
  }
}

/** The finding of `point`; `target` supplies the URL the log does not name. */
export function injectionFinding(
  point: InjectionPoint,
  target: ScanTarget,
  source: 'log' | 'csv',
): DraftFinding {
  const url = point.url ?? target.value;
  const types = point.techniques.map((technique) => technique.type);
  const dbms = point.facts.get('back-end DBMS') ?? null;
  const techniqueEvidence =
    point.letters !== ''
      ? [`Technique(s): ${point.letters} (${types.join(', ')})`]
      : point.techniques.map((technique) =>
          [
            `Type: ${technique.type}`,
            ...(technique.title === null ? [] : [`Title: ${technique.title}`]),
            ...(technique.payload === null ? [] : [`Payload: ${technique.payload}`]),
          ].join('\n'),
        );
  const factEvidence = [...point.facts].map(([name, value]) => `${name}: ${value}`);
  const evidence = [
    ...techniqueEvidence,
    [
      ...factEvidence,
      ...(point.databases.length === 0 ? [] : [`databases: ${point.databases.join(', ')}`]),
      ...(point.notes === '' ? [] : [`note: ${point.notes}`]),
    ].join('\n'),
  ]
    .filter((part) => part !== '')
    .join('\n\n');
  return {
    ruleId: `sql-injection:${point.place}:${point.parameter}`,
    title: `SQL injection in ${point.place} parameter \`${point.parameter}\``,
    severity: 'high',
    toolSeverity: null,
    category: 'sql-injection',
    location: locationOf(url, target.host),
    identifiers: { cve: [], cwe: ['CWE-89'] },
    description:
      `sqlmap confirmed that the ${point.place} parameter \`${point.parameter}\` of ${url} is ` +
      `injectable${types.length === 0 ? '' : ` (${types.join(', ')})`}.` +
      (dbms === null ? '' : ` Back-end DBMS: ${dbms}.`) +
      ' Through it an attacker can read or change data in the database, and depending on the ' +
      'DBMS and its privileges reach files or commands on the database server.',
    evidence: evidence === '' ? null : evidence,
    remediation: REMEDIATION,
    references: REFERENCES,
    raw: {
      source,
      place: point.place,
      parameter: point.parameter,
      ...(point.url === null ? {} : { url: point.url }),
      techniques: point.techniques.map((technique) => ({
        type: technique.type.slice(0, MAX_NAME_CHARS),
        title: technique.title === null ? null : technique.title.slice(0, MAX_NAME_CHARS),
      })),
      dbms,
      ...(point.databases.length === 0 ? {} : { databases: point.databases.slice(0, 20) }),
      ...(point.notes === '' ? {} : { notes: point.notes }),
    },
  };
}
