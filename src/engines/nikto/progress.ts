/**
 * Scan progress from nikto's stdout. With `-Display P`, nikto's test loop (the `tests` plugin,
 * which its default plugin set runs as `tests(report:500)`) calls status_report every 500
 * requests, which prints, in nikto 2.5,
 *
 *     - STATUS: Completed 1500 requests (~23% complete, 4.1 minutes left): currently in plugin 'Nikto Tests'
 *     - STATUS: Running average: 100 requests: 0.01061 sec, 10 requests: 0.0106 sec.
 *
 * and in nikto 2.1.x `- STATUS: Completed 1500 tests (~23% complete, 4.1 minutes left: currently
 * in plugin 'Nikto Tests')`, or `- STATUS: Starting up!` / `- STATUS: Finishing up!`. The
 * percentage is requests made over nikto's database checks, so it is read as a rough guide and
 * mapped into the 5–95 band. Without status lines (a site config that changes the default plugin
 * set), the phase lines nikto always prints give a coarse progress: the target banner at the start,
 * the request summary and end time at the end.
 */

interface PhaseLine {
  readonly line: RegExp;
  readonly percent: number;
}

/** Lines nikto prints once per phase, in the order it prints them. */
const PHASES: readonly PhaseLine[] = [
  { line: /^- Nikto v\d/, percent: 1 },
  { line: /^\+ Target (IP|Hostname|Port):/, percent: 2 },
  { line: /^\+ Start Time:/, percent: 3 },
  { line: /^- STATUS: Starting up!/, percent: 4 },
  { line: /^- STATUS: Finishing up!/, percent: 95 },
  // Per host, after the scan hooks: "+ 8081 requests: 0 error(s) and 12 item(s) reported on remote host"
  // (nikto 2.1.5: "+ 26 items checked: 0 error(s) and 1 item(s) reported on remote host").
  {
    line: /^\+ \d+ (?:requests?|items checked): \d+ error\(s\) and \d+ item\(s\) reported/,
    percent: 96,
  },
  { line: /^\+ SCAN TERMINATED:/, percent: 96 },
  { line: /^\+ End Time:/, percent: 97 },
  { line: /^\+ \d+ host\(s\) tested/, percent: 99 },
];

const STATUS_PERCENT = /^- STATUS: Completed \d+ (?:requests|tests)\b.*?\(~(\d{1,3})% complete/;
const STATUS_BAND = { from: 5, to: 95 } as const;

/**
 * The run's progress (an integer 0..99) from one line of nikto's stdout, or null for any other
 * line. Never 100: only completion is. A caller should keep the highest value seen.
 * @example parseNiktoProgress("- STATUS: Completed 1500 requests (~50% complete, 2.0 minutes left): currently in plugin 'Nikto Tests'") // 50
 */
export function parseNiktoProgress(line: string): number | null {
  const text = line.trim();
  const status = STATUS_PERCENT.exec(text);
  if (status !== null) {
    const percent = Math.min(Number(status[1]), 100);
    return Math.floor(STATUS_BAND.from + ((STATUS_BAND.to - STATUS_BAND.from) * percent) / 100);
  }
  return PHASES.find((phase) => phase.line.test(text))?.percent ?? null;
}
