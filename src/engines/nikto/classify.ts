/**
 * Severity and category for a nikto item. nikto itself rates nothing (FORMATS.md): every item is
 * "something nikto's checks matched". This table puts well-known kinds of items on the common
 * scale; anything it does not recognise stays `info`. First matching rule wins.
 *
 * The rules read the message text first and the test id second, because nikto reuses ids across
 * versions for different checks (in 2.1.5, 999976 is both "X-Frame-Options header is not present"
 * and "'DELETE' may allow clients to remove files"; in 2.5, 999978 is the X-Frame-Options check).
 */
import type { Severity } from '../../domain/findings/finding.js';

/** What the classification looks at. */
export interface ClassifyInput {
  /** The test id as a number; NaN when it is not numeric. */
  readonly id: number;
  /** The OSVDB id of nikto 2.1.x output; null or 0 when there is none. */
  readonly osvdb: number | null;
  readonly message: string;
  readonly cves: readonly string[];
}

export interface Classification {
  /** The rule's name, also shown in `raw` so the mapping of a finding can be traced. */
  readonly rule: string;
  readonly severity: Severity;
  readonly category: string;
  /** A short generic fix for the kind of item, or null. nikto gives none. */
  readonly remediation: string | null;
}

interface Rule extends Classification {
  readonly matches: (input: ClassifyInput) => boolean;
}

const text = (pattern: RegExp) => (input: ClassifyInput) => pattern.test(input.message);

/** nikto's db_outdated checks use ids 600000–699999. */
const OUTDATED_IDS = { from: 600_000, to: 699_999 } as const;
/** Ids below this come from nikto's main database (db_tests): files, CGIs and default content. */
const DB_TESTS_BELOW = 100_000;

/** The mapping, most specific first. README.md shows the same table. */
export const NIKTO_RULES: readonly Rule[] = [
  {
    rule: 'default-credentials',
    matches: text(/\bdefault (account|login|credentials?|password|user ?name)\b/i),
    severity: 'high',
    category: 'default-credentials',
    remediation: 'Change or disable the default account.',
  },
  {
    rule: 'outdated-software',
    matches: (input) =>
      (input.id >= OUTDATED_IDS.from && input.id <= OUTDATED_IDS.to) ||
      /appears to be outdated|\bis outdated\b|end[- ]of[- ]life/i.test(input.message),
    severity: 'medium',
    category: 'outdated-software',
    remediation: 'Upgrade the software to a supported release.',
  },
  {
    rule: 'dangerous-http-method',
    matches: text(/'(PUT|DELETE)'( method)? (could|may) allow|\bTRACE method is active|\bXST\b/i),
    severity: 'medium',
    category: 'http-method',
    remediation: 'Disable the HTTP method on the server unless it is needed and authenticated.',
  },
  {
    rule: 'sensitive-file',
    matches: text(
      /backup\/cert file|\bbackup file|password file|\.htpasswd|authorization information|private key/i,
    ),
    severity: 'medium',
    category: 'sensitive-file',
    remediation: 'Remove the file from the web root or deny access to it.',
  },
  {
    rule: 'admin-interface',
    matches: text(/\b(manager|admin(istration)?|management) (interface|console)\b/i),
    severity: 'medium',
    category: 'admin-interface',
    remediation: 'Restrict the interface to trusted networks and authenticated users.',
  },
  {
    rule: 'cors-wildcard',
    matches: text(/access-control-allow-origin header: \*/i),
    severity: 'low',
    category: 'security-header',
    remediation: 'Allow only trusted origins in Access-Control-Allow-Origin.',
  },
  {
    rule: 'security-header',
    matches: text(
      /header is not (present|set|defined)|header is deprecated|anti-clickjacking|without the (httponly|secure) flag/i,
    ),
    severity: 'low',
    category: 'security-header',
    remediation: 'Send the recommended security header or cookie flag.',
  },
  {
    rule: 'information-leak',
    matches: text(/leaks inodes via ETags|\bBREACH\b|internal IP address/i),
    severity: 'low',
    category: 'information-disclosure',
    remediation: null,
  },
  {
    rule: 'known-vulnerability',
    matches: (input) =>
      input.cves.length > 0 ||
      /vulnerable to (cross[- ]site|sql|remote|command|directory)|remote (code|command) execution/i.test(
        input.message,
      ),
    severity: 'medium',
    category: 'vulnerability',
    remediation: 'Update or remove the affected component.',
  },
  {
    // Identification only: banners, uncommon headers, robots.txt entries, allowed methods. Comes
    // before the OSVDB rule: 2.1.5 gives "favicon.ico identifies this server" an OSVDB id.
    rule: 'identification',
    matches: text(
      /identifies this server|Retrieved [\w-]+ header|uncommon header|robots\.txt|Allowed HTTP Methods|junk HTTP methods|Server banner/i,
    ),
    severity: 'info',
    category: 'information-disclosure',
    remediation: null,
  },
  {
    rule: 'osvdb-reference',
    matches: (input) => input.osvdb !== null && input.osvdb > 0,
    severity: 'low',
    category: 'vulnerability',
    remediation: null,
  },
  {
    rule: 'database-check',
    matches: (input) => input.id > 0 && input.id < DB_TESTS_BELOW,
    severity: 'low',
    category: 'interesting-content',
    remediation: null,
  },
];

const FALLBACK: Classification = {
  rule: 'default',
  severity: 'info',
  category: 'information',
  remediation: null,
};

/**
 * The severity, category and generic remediation of one nikto item.
 * @example classifyNiktoItem({ id: 700007, osvdb: 0, message: "Default account found for 'Restricted'", cves: [] }).severity // 'high'
 */
export function classifyNiktoItem(input: ClassifyInput): Classification {
  const rule = NIKTO_RULES.find((candidate) => candidate.matches(input));
  if (rule === undefined) {
    return FALLBACK;
  }
  const { rule: name, severity, category, remediation } = rule;
  return { rule: name, severity, category, remediation };
}
