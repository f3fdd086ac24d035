#!/usr/bin/env node
// A scanner gone bad: argv[2] is a JSON list of attempts `{ what, op, path }` (op: read, list or
// write), each tried in turn. Prints one line per attempt, `<what>: succeeded` or
// `<what>: failed <CODE>`, then its own uid and effective capabilities, and exits 0.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

const attempts = JSON.parse(process.argv[2] ?? '[]');
for (const { what, op, path } of attempts) {
  try {
    if (op === 'read') {
      readFileSync(path);
    } else if (op === 'list') {
      readdirSync(path);
    } else {
      writeFileSync(path, 'escaped\n');
    }
    process.stdout.write(`${what}: succeeded\n`);
  } catch (error) {
    process.stdout.write(`${what}: failed ${error.code ?? error.message}\n`);
  }
}
const capEff = /CapEff:\s*(\w+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
process.stdout.write(`uid: ${process.getuid()}\ncapabilities: ${capEff}\n`);
