// TEST DOUBLE for ZAP's launcher `zap.sh` (https://www.zaproxy.org), which cannot be installed on
// the build machine (a Java application of several hundred MB with its add-ons). It is not ZAP:
// it checks that its argv keeps to zap.sh's real command-line contract and that the Automation
// Framework plan it is given names a target and a traditional-json report, then replays a real
// ZAP report from ../shared/fixtures/scanner-output/zap/ to where the plan's report job writes it.
// Settings (fixture, exit code, printed lines, hold) come from install-double.ts; see
// src/engines/zap/README.md.
//
// When the settings name an argv log, the double also copies the plan it read next to it
// (`<argvLog>.plan.yaml`) and writes the plan's file mode (`<argvLog>.plan-mode`, octal), so a
// test can check what reached the plan and that nobody else could read it.
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { one, readArgv, refuse, replay, settings } from './double-kit.mjs';

const TOOL = 'zap';

/**
 * zap.sh's options: core (zaproxy `CommandLine.java`: `-cmd`, `-daemon`, `-version`, `-h`,
 * `-help`, `-dir`, `-installdir`, `-config`, `-configfile`, `-newsession`, `-session`, `-lowmem`,
 * `-experimentaldb`, `-nostdout`, `-dev`, `-suppinfo`, `-silent`) and those of the add-ons a
 * standard install has: automation (`-autorun`, `-autogenmin`, `-autogenmax`, `-autogenconf`),
 * network (`-host`, `-port`, `-certload`, `-certpubdump`, `-certfulldump`), autoupdate
 * (`-addoninstall`, `-addonuninstall`, `-addoninstallall`, `-addonupdate`, `-addonlist`),
 * quickstart (`-quickurl`, `-quickout`, `-quickprogress`) and callhome (`-notel`).
 */
const KNOWN_FLAGS = {
  '-cmd': 'switch',
  '-daemon': 'switch',
  '-version': 'switch',
  '-h': 'switch',
  '-help': 'switch',
  '-dir': 'value',
  '-installdir': 'value',
  '-config': 'value',
  '-configfile': 'value',
  '-newsession': 'value',
  '-session': 'value',
  '-lowmem': 'switch',
  '-experimentaldb': 'switch',
  '-nostdout': 'switch',
  '-dev': 'switch',
  '-suppinfo': 'switch',
  '-silent': 'switch',
  '-autorun': 'value',
  '-autogenmin': 'value',
  '-autogenmax': 'value',
  '-autogenconf': 'value',
  '-host': 'value',
  '-port': 'value',
  '-certload': 'value',
  '-certpubdump': 'value',
  '-certfulldump': 'value',
  '-addoninstall': 'value',
  '-addonuninstall': 'value',
  '-addoninstallall': 'switch',
  '-addonupdate': 'switch',
  '-addonlist': 'switch',
  '-quickurl': 'value',
  '-quickout': 'value',
  '-quickprogress': 'switch',
  '-notel': 'switch',
};

const argv = process.argv.slice(2);

// ZAP reads a flag's value as the next argument; `-flag=value` is not a form it knows.
const glued = argv.find((arg) => /^-[A-Za-z]+=/.test(arg));
if (glued !== undefined) {
  refuse(TOOL, `ZAP has no -flag=value form: ${glued}`);
}

const { flags, positionals } = readArgv(TOOL, argv, KNOWN_FLAGS);

// ZAP takes any other word for a file to open ("Unsupported option or file").
if (positionals.length > 0) {
  refuse(TOOL, `unexpected argument ${positionals[0]}`);
}
one(TOOL, flags, '-cmd');
if (flags.has('-daemon')) {
  // CommandLine: "Command line arguments -cmd and -daemon cannot be used at the same time."
  refuse(TOOL, '-cmd and -daemon cannot be used at the same time');
}
for (const value of flags.get('-config') ?? []) {
  if (value.indexOf('=') <= 0) {
    refuse(TOOL, `-config takes key=value, got ${value}`);
  }
}
const home = one(TOOL, flags, '-dir');
if (!home.startsWith('/')) {
  refuse(TOOL, `-dir must be an absolute path in the workspace, got ${home}`);
}
const planPath = one(TOOL, flags, '-autorun');
if (!planPath.startsWith('/') || !existsSync(planPath)) {
  refuse(TOOL, `-autorun names no readable plan: ${planPath}`);
}
const plan = readFileSync(planPath, 'utf8');

/** The value of a `key: "…"` line of the plan (the engine writes JSON-compatible scalars). */
function planValue(key) {
  const line = plan.split('\n').find((text) => text.trimStart().startsWith(`${key}: "`));
  if (line === undefined) {
    return null;
  }
  try {
    return JSON.parse(line.slice(line.indexOf(': ') + 2));
  } catch {
    return null;
  }
}

// The target is in the plan: the context's first URL.
const urls = plan.split('\n').findIndex((text) => text.trim() === 'urls:');
const firstUrl = urls === -1 ? '' : (plan.split('\n')[urls + 1] ?? '').trim();
if (!/^- "https?:\/\/[^"\s]+"$/.test(firstUrl)) {
  refuse(TOOL, 'the plan names no target URL (env.contexts[0].urls)');
}
if (planValue('template') !== 'traditional-json') {
  refuse(TOOL, 'the plan has no report job with template traditional-json');
}
const reportDir = planValue('reportDir');
const reportFile = planValue('reportFile');
if (typeof reportDir !== 'string' || !reportDir.startsWith('/') || typeof reportFile !== 'string') {
  refuse(TOOL, 'the report job names no absolute reportDir and reportFile');
}

const { argvLog } = settings();
if (argvLog) {
  copyFileSync(planPath, `${argvLog}.plan.yaml`);
  writeFileSync(`${argvLog}.plan-mode`, (statSync(planPath).mode & 0o777).toString(8));
}

await replay(join(reportDir, reportFile));
