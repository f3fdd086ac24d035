/**
 * Scan progress from sublist3r's status lines on stdout. sublist3r 1.1 (Debian, run here with
 * `--no-color`) prints, in this order:
 *
 *     [-] Enumerating subdomains now for example.com
 *     [-] Searching now in Baidu..                      (one per search engine, all at the start)
 *     [-] Starting bruteforce module now using subbrute..   (with --bruteforce, after the engines)
 *     [-] Saving results to file: /…/subdomains.txt     (only when something was found)
 *     [-] Total Unique Subdomains Found: 4
 *     [-] Start port scan now for the following ports: 80,443   (with --ports)
 *
 * It gives no percentage and no per-engine "done" line (engines that fail print a Python error
 * instead), so each step is a fixed point of the run. Without brute force the search engines are
 * the whole run (2 → 90); with it they end where the brute force starts (50). The Python output is
 * block-buffered on a pipe but flushed whenever sublist3r starts a process, so the lines arrive
 * close to when they are printed.
 */

interface Step {
  readonly line: RegExp;
  readonly percent: number;
}

const STEPS: readonly Step[] = [
  { line: /^\[-\] Enumerating subdomains now for \S+$/, percent: 1 },
  { line: /^\[-\] Searching now in [A-Za-z ]+\.\.$/, percent: 2 },
  { line: /^\[-\] Starting bruteforce module now using subbrute\.\.$/, percent: 50 },
  { line: /^\[-\] Saving results to file: /, percent: 90 },
  { line: /^\[-\] Total Unique Subdomains Found: [0-9]+$/, percent: 95 },
  { line: /^\[-\] Start port scan now for the following ports: /, percent: 96 },
];

/** ANSI colour sequences, in case a line is printed without `--no-color`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is matched.
const ANSI_COLOUR = /\u001b\[[0-9;]*m/g;

/**
 * The run's progress (an integer 0..99) from one line of sublist3r's stdout, or null for any other
 * line (the banner, Python errors, subdomain names). Never 100: only completion is. A caller
 * should keep the highest value seen.
 * @example parseSublist3rProgress('[-] Starting bruteforce module now using subbrute..') // 50
 */
export function parseSublist3rProgress(line: string): number | null {
  const text = line.replace(ANSI_COLOUR, '').trim();
  return STEPS.find((step) => step.line.test(text))?.percent ?? null;
}
