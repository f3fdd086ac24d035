#!/usr/bin/env node
// Starts a grandchild that sleeps forever and writes its own pid to argv[2] once it is set up,
// then announces "ready". argv[3] says what happens next:
//   stay        the leader sleeps forever too (the grandchild shares stdout, in the same group)
//   stay-quiet  like stay, but the grandchild ignores TERM and has no pipes of ours
//   leave       the leader exits 0 at once, leaving the grandchild behind in its group
//   escape      the grandchild starts its own session (outside the group), keeps our stdout,
//               and the leader exits 0
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const [pidFile, mode = 'stay'] = process.argv.slice(2);
const ignoreTerm = mode === 'stay-quiet' ? "process.on('SIGTERM', () => {});" : '';
// The pid file is written after the TERM handler is in place: "ready" then means armed.
const code = `${ignoreTerm} require('node:fs').writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 60000);`;
const grandchild = spawn(process.execPath, ['-e', code, pidFile], {
  stdio: mode === 'stay-quiet' ? 'ignore' : 'inherit',
  detached: mode === 'escape',
});

const waitForGrandchild = setInterval(() => {
  if (!existsSync(pidFile)) {
    return;
  }
  clearInterval(waitForGrandchild);
  process.stdout.write('ready\n');
  if (mode === 'leave' || mode === 'escape') {
    grandchild.unref();
    process.exit(0);
  }
  setInterval(() => {}, 60_000);
}, 10);
