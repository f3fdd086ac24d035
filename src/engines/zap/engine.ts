import type { ToolEngine } from '../engine.js';
import { webConfigOf, webConfigProblem, webConfigSchema } from '../web-config.js';
import { buildZapArgv, ZAP_PLAN_FILE } from './argv.js';
import { zapOptionsSchema, zapOptionsWithDefaults } from './options.js';
import { createZapParser, parseZapReport } from './parse.js';
import { renderZapPlan, zapOptionProblems } from './plan.js';
import { parseZapProgress } from './progress.js';

/** The report the plan's report job writes, relative to the workspace. */
export const ZAP_REPORT_FILE = 'report.json';

/** `/dir/file` → `['/dir', 'file']` (no node:path: engines stay free of I/O modules). */
function splitPath(path: string): { readonly dir: string; readonly file: string } {
  const slash = path.lastIndexOf('/');
  return slash <= 0
    ? { dir: slash === 0 ? '/' : '.', file: path.slice(slash + 1) }
    : { dir: path.slice(0, slash), file: path.slice(slash + 1) };
}

// zap.sh is ZAP's launcher (the packaged scripts zap-baseline.py / zap-full-scan.py wrap it).
export const zapEngine: ToolEngine = {
  kind: 'tool',
  name: 'zap',
  description: 'OWASP ZAP web application dynamic testing',
  targetTypes: ['url'],
  binary: 'zap.sh',
  versionArgs: ['-cmd', '-version'],
  optionsSchema: zapOptionsSchema,
  // Headers, cookies, auth, user agent and exclusions: into the plan file (plan.ts), never argv.
  configSchema: webConfigSchema,
  configProblem: webConfigProblem,
  defaultTimeoutSeconds: 7200,
  // Authentication completeness and the login page's origin need the target: templates are
  // checked when a scan uses them.
  optionsProblem: (options, target) => {
    if (target === null) {
      return null;
    }
    const [problem] = zapOptionProblems(zapOptionsWithDefaults({ ...options }), target);
    return problem === undefined ? null : { field: 'authentication', reason: problem };
  },
  command: {
    reportFile: ZAP_REPORT_FILE,
    // No option and no credential is on the command line: they are all in the plan file.
    buildArgv: (_options, target, context) => buildZapArgv(target, { workDir: context.workDir }),
    inputFiles: (options, target, context) => {
      const { dir, file } = splitPath(context.reportPath);
      return [
        {
          path: ZAP_PLAN_FILE,
          content: renderZapPlan(zapOptionsWithDefaults({ ...options }), target, {
            reportDir: dir,
            reportFile: file,
            config: webConfigOf(context.config),
          }),
        },
      ];
    },
    parse: (report) => parseZapReport(report),
    createParser: () => createZapParser(),
    // The plan's job lines are on stdout; accepted from stderr too (a log redirect changes it).
    progress: (line) => parseZapProgress(line),
    // `-cmd -autorun` exits 0 when the plan ran cleanly, 2 when it only logged warnings (an
    // unreachable optional page, a deprecated parameter) and 1 on plan errors (automation
    // add-on `ExtensionAutomation.execute`); the report is trusted after 0 and 2.
    successExitCodes: [0, 2],
    // The plan's last job writes the report: without it the plan stopped before (a failed job).
    reportRequired: true,
  },
};
