/**
 * Scan progress from the Automation Framework's job lines. With `progressToStdout: true` (set in
 * the plan) ZAP prints, through `CommandLine.info` on stdout, before and after every job:
 *
 *     Job spider started
 *     Job spider found 47 URLs
 *     Job spider finished, time taken: 00:00:03
 *
 * (automation add-on `Messages.properties`: `automation.info.jobstart = Job {0} started`,
 * `automation.info.jobend = Job {0} finished`, the time taken added in later releases; seen in
 * zaproxy issues #7138 and #8558). Without `-nostdout` the same text also comes through log4j
 * with a prefix (`2022-03-16 13:49:06,372 [main ] INFO  CommandLine - Job spider started`), so the
 * phrase is matched anywhere in the line. No job reports a percentage, so each job is mapped onto
 * a band of the whole run in the order the plan runs them; the active scan gets the widest band,
 * being where the time goes. The bands are a rough guide, not a measurement.
 */

interface JobBand {
  readonly from: number;
  readonly to: number;
}

/** Job type → band, in plan order (`plan.ts`). */
const JOB_BANDS: Readonly<Record<string, JobBand>> = {
  replacer: { from: 1, to: 2 },
  spider: { from: 2, to: 20 },
  spiderAjax: { from: 20, to: 35 },
  'passiveScan-wait': { from: 35, to: 40 },
  activeScan: { from: 40, to: 95 },
  report: { from: 95, to: 98 },
};

/** "Automation plan succeeded!" / "…failures:" / "…warnings:": the plan has run. */
const PLAN_END = /\bAutomation plan (succeeded!|failures:|warnings:)/;
const PLAN_END_PROGRESS = 99;

const JOB_LINE = /(?:^|\s)Job (\S+) (started|finished)(?=$|[\s,])/;

/**
 * The run's progress (an integer 0..99) from one line of ZAP's output, or null for any other line.
 * Never 100: only completion is. The caller keeps the highest value seen.
 * @example parseZapProgress('Job activeScan started') // 40
 */
export function parseZapProgress(line: string): number | null {
  if (PLAN_END.test(line)) {
    return PLAN_END_PROGRESS;
  }
  const match = JOB_LINE.exec(line.trim());
  if (match === null) {
    return null;
  }
  const [, job = '', event] = match;
  const band = Object.hasOwn(JOB_BANDS, job) ? JOB_BANDS[job] : undefined;
  if (band === undefined) {
    return null;
  }
  return event === 'started' ? band.from : band.to;
}
