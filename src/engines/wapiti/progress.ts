/**
 * Scan progress from wapiti's console output. wapiti 3.0.4 prints no percentage; with
 * `--verbose=1` a run looks like this (seen by running it against a local test app):
 *
 *     [+] GET http://127.0.0.1:43687/ (0)                     ← crawl, one line per resource
 *     [+] GET http://127.0.0.1:43687/search?q=apple (1)          with its link depth
 *     [*] Saving scan state, please wait...
 *     [*] Wapiti found 5 URLs and forms during the scan       ← crawl done
 *     [*] Loading modules:
 *     [*] Launching module sql                                ← one per attack module, in
 *     [+] GET http://127.0.0.1:43687/hello?name=world (1)        wapiti's fixed order
 *     [*] Launching module xss
 *     A report has been generated in the file /…/report.json  ← report written
 *
 * The run is mapped onto bands: the crawl 0–20 (by link depth, which only grows: the crawl is
 * breadth-first), the attack modules 20–95, the report 98. The line only names the module, not
 * how many were asked for, so module bands come from the fixed list of wapiti's 11 default
 * modules: the k-th default module starts at 20 + 75·k/11. A module outside the default set sits
 * half a step after the default module it follows in wapiti's run order, so every run moves
 * forward. With a smaller `modules` list progress jumps ahead, never back.
 */
import { WAPITI_DEFAULT_MODULES, WAPITI_MODULES } from './options.js';

const CRAWL_END = 20;
const ATTACK_END = 95;
const REPORT_WRITTEN = 98;

/** ANSI colour sequences (`--color`, or a logger that colours anyway). */
const ANSI = new RegExp(`${String.fromCharCode(0x1b)}\\[[0-9;]*m`, 'g');
const CRAWL_LINE = /^\[\+\] [A-Z]+ \S.* \((\d{1,4})\)$/;
const CRAWL_DONE = /^\[\*\] Wapiti found \d+ URLs and forms during the scan$/;
const MODULE_LINE = /^\[\*\] Launching module ([a-z_]+)$/;
const REPORT_LINE = /^A report has been generated in the file /;

/**
 * Each module's position on the default scale: the number of default modules that run before it,
 * less one half for a module that is not a default one itself.
 */
const MODULE_RANK: ReadonlyMap<string, number> = (() => {
  const defaults: readonly string[] = WAPITI_DEFAULT_MODULES;
  const ranks = new Map<string, number>();
  let defaultsBefore = 0;
  for (const name of WAPITI_MODULES) {
    if (defaults.includes(name)) {
      ranks.set(name, defaultsBefore);
      defaultsBefore += 1;
    } else {
      ranks.set(name, Math.max(0, defaultsBefore - 0.5));
    }
  }
  return ranks;
})();

/**
 * The run's progress (an integer 0..99) from one line of wapiti's output, or null for any other
 * line. Never 100: only completion is. A caller keeps the highest value seen (attack modules print
 * `[+]` lines too, which read as crawl progress and so never lower it).
 * @example parseWapitiProgress('[*] Launching module sql') // 54
 */
export function parseWapitiProgress(line: string): number | null {
  const text = line.replace(ANSI, '').trim();
  const crawl = CRAWL_LINE.exec(text);
  if (crawl !== null) {
    const depth = Number(crawl[1]);
    // Depth 0 → 2, 1 → 11, 2 → 14, 3 → 15 …, approaching the end of the crawl band.
    return Math.floor(CRAWL_END - 18 / (depth + 1));
  }
  if (CRAWL_DONE.test(text)) {
    return CRAWL_END;
  }
  const module = MODULE_LINE.exec(text);
  if (module !== null) {
    const rank = MODULE_RANK.get(module[1] ?? '');
    if (rank === undefined) {
      return null;
    }
    const band = ATTACK_END - CRAWL_END;
    return Math.floor(CRAWL_END + (band * rank) / WAPITI_DEFAULT_MODULES.length);
  }
  return REPORT_LINE.test(text) ? REPORT_WRITTEN : null;
}
