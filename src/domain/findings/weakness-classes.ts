/**
 * Which CWE ids name the same weakness, for the `weakness` correlation rule (README,
 * "Correlation"). Scanners map one flaw to different members of a CWE family (ZAP, wapiti and
 * sqlmap say CWE-89 for SQL injection, some nuclei templates CWE-943; XSS comes as CWE-79, 80,
 * 83 or 87), so ids are grouped into classes, and two findings share a weakness when they share
 * a class. A CWE outside every group is a class of its own.
 *
 * Broad CWEs name no weakness precisely enough to merge on: the pillars at the top of CWE's
 * research view, the categories CWE itself marks "prohibited" for mapping, and the classes tools
 * use for almost anything (CWE-200 "Exposure of Sensitive Information" is ZAP's id for a Server
 * header, a timestamp, a Base64 string and an HTTP PUT alike). They give no class, so two
 * unrelated findings on one page are not merged because both said CWE-200 or CWE-16.
 */

/** Families of CWE ids that name one weakness, and the class name they share. */
const FAMILIES: ReadonlyArray<readonly [string, readonly number[]]> = [
  // Cross-site scripting: CWE-79 and its variants 80 to 87 (basic, attributes, alternate syntax …).
  ['xss', [79, 80, 81, 82, 83, 84, 85, 86, 87]],
  // SQL injection, Hibernate SQL injection, improper neutralization in a data query (NoSQL).
  ['sql-injection', [89, 564, 943]],
  // OS command injection: the command (77) and OS command (78) forms.
  ['os-command-injection', [77, 78]],
  // Path traversal: CWE-22 and its relative (23–35) and absolute (36–40) variants.
  ['path-traversal', [22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40]],
  ['file-inclusion', [98]],
  ['code-injection', [94, 95]],
  ['ssrf', [918]],
  ['xxe', [611]],
  ['open-redirect', [601]],
  ['csrf', [352]],
  // CRLF injection and HTTP response splitting.
  ['crlf-injection', [93, 113]],
];

/**
 * CWEs that give no class: pillars (284, 435, 664, 682, 691, 693, 697, 703, 707, 710),
 * categories tools still emit (2, 16, 17, 18, 19, 254, 255, 264, 275, 310, 320, 399, 417, 442,
 * 1210, 1211, 1212), and the catch-all classes Improper Input Validation (20), Injection (74),
 * Exposure of Sensitive Information (200) and Exposure of Resource to Wrong Sphere (668).
 */
export const BROAD_CWES: ReadonlySet<number> = new Set([
  2, 16, 17, 18, 19, 20, 74, 200, 254, 255, 264, 275, 284, 310, 320, 399, 417, 435, 442, 664, 668,
  682, 691, 693, 697, 703, 707, 710, 1210, 1211, 1212,
]);

const FAMILY_OF: ReadonlyMap<number, string> = new Map(
  FAMILIES.flatMap(([name, ids]) => ids.map((id) => [id, name] as const)),
);

const CWE_ID = /^CWE-(\d{1,7})$/i;

/**
 * The weakness class of a CWE id (`CWE-79` → `xss`, `CWE-530` → `CWE-530`), or null for a broad
 * CWE or a string that is not a CWE id.
 * @example weaknessClassOf('CWE-564') // 'sql-injection'
 */
export function weaknessClassOf(cwe: string): string | null {
  const digits = CWE_ID.exec(cwe.trim())?.[1];
  if (digits === undefined) {
    return null;
  }
  const id = Number(digits);
  if (BROAD_CWES.has(id)) {
    return null;
  }
  return FAMILY_OF.get(id) ?? `CWE-${id}`;
}
