/**
 * Scan progress from theHarvester's own console lines. It prints no percentage; what it does
 * print marks its phases, in this order (real lines of 4.x; current releases write the same texts
 * through their logger, older ones wrap them in ANSI colour codes):
 *
 *     [*] Target: example.com
 *     [*] Searching Crtsh.                        once per source, as each one answers
 *     [*] Starting DNS brute force.               with --dns-brute
 *     [*] Starting active queries for DNSLookup.  with --dns-lookup
 *     [*] Performing reverse lookup on 93.184.216.0/24
 *     [*] Reporting started.
 *     [*] XML File saved.
 *     [*] JSON File saved.
 *
 * The sources are queried concurrently and take most of the time, but one line cannot tell how
 * many of them are left: `progress(line, stream)` does not know how many were requested. So
 * `parseHarvesterProgress` maps every "Searching" line to one fixed value, and
 * `createHarvesterProgress(sourceCount)` (for a contract that hands progress the options; see
 * README.md) counts the distinct sources that answered.
 */

interface Phase {
  readonly line: RegExp;
  readonly percent: number;
}

/** The phases after the source searches, first match wins. */
const LATER_PHASES: readonly Phase[] = [
  { line: /^\[\*\] Starting DNS brute force\b/, percent: 60 },
  { line: /^\[\*\] Starting active queries for DNSLookup\b/, percent: 75 },
  { line: /^\[\*\] Performing reverse lookup on /, percent: 78 },
  { line: /^\[\*\] Reporting started\b/, percent: 90 },
  { line: /^\[\*\] XML File saved\b/, percent: 94 },
  { line: /^\[\*\] JSON File saved\b/, percent: 97 },
  { line: /^\[\*\] JSONL File saved\b/, percent: 98 },
];

const TARGET_LINE = /^\[\*\] Target: \S/;
/** `[*] Searching Crtsh.`; not Shodan's per-address `Searching for 1.2.3.4` lines. */
const SOURCE_LINE = /^\[\*\] Searching (?!for )(\S.*?)\.?$/;
/** Where the source band starts and ends: after the start-up, before the DNS actions. */
const SOURCES_FROM = 5;
const SOURCES_TO = 55;
/** A "Searching" line when the number of sources is not known. */
const SOME_SOURCE_ANSWERED = 30;

/** ANSI colour sequences (`ESC[94m`), written as a string: the pattern holds a control character. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

function plain(line: string): string {
  return line.replace(ANSI, '').trim();
}

function laterPhase(text: string): number | null {
  return LATER_PHASES.find((phase) => phase.line.test(text))?.percent ?? null;
}

/**
 * The run's progress (an integer 0..99) from one line theHarvester printed, on either stream, or
 * null for any other line. Never 100: only completion is. The caller keeps the highest value.
 * @example parseHarvesterProgress('\u001b[94m[*] Searching Crtsh. ') // 30
 */
export function parseHarvesterProgress(line: string): number | null {
  const text = plain(line);
  if (TARGET_LINE.test(text)) {
    return SOURCES_FROM;
  }
  return SOURCE_LINE.test(text) ? SOME_SOURCE_ANSWERED : laterPhase(text);
}

/**
 * The same reading for one run whose number of requested sources is known: each distinct source
 * that answered moves the value through the source band (5..55), the later phases as above.
 * Stateful, one per run; pure otherwise.
 * @example const next = createHarvesterProgress(2); next('[*] Searching Crtsh.') // 30
 */
export function createHarvesterProgress(sourceCount: number): (line: string) => number | null {
  const answered = new Set<string>();
  const total = Math.max(1, Math.floor(sourceCount));
  return (line) => {
    const text = plain(line);
    const source = SOURCE_LINE.exec(text)?.[1];
    if (source === undefined) {
      return parseHarvesterProgress(text);
    }
    answered.add(source.toLowerCase());
    const share = Math.min(answered.size, total) / total;
    return Math.floor(SOURCES_FROM + (SOURCES_TO - SOURCES_FROM) * share);
  };
}
