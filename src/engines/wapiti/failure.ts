/**
 * wapiti 3.0.4 exits 0 and writes a report with no entries when the target never answered: its
 * crawler found nothing to attack, which it says on stdout (seen against a closed port here):
 *
 *     [*] Wapiti found 0 URLs and forms during the scan
 *
 * A reachable site counts at least its start page, so 0 means the scan tested nothing and must
 * not read as a clean result.
 */
const NOTHING_CRAWLED = /^\[\*\] Wapiti found 0 URLs and forms during the scan/;

/**
 * The failure a line of wapiti's output reports, or null.
 * @example wapitiFailure('[*] Wapiti found 0 URLs and forms during the scan') // 'the crawler found …'
 */
export function wapitiFailure(line: string): string | null {
  return NOTHING_CRAWLED.test(line.trim())
    ? 'the crawler found no URL or form to test: the target did not answer or refused every request'
    : null;
}
