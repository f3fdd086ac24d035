// Shared by the scanner doubles (`<tool>.mjs` beside this file): settings, argv checks, replay.
// Plain JavaScript: a double runs as its own process, outside the TypeScript build.
import { appendFileSync, copyFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/** The settings `install-double.ts` wrote into the executable. */
export function settings() {
  return JSON.parse(process.env.RAMPART_DOUBLE_SETTINGS ?? '{}');
}

/** Ends the double like a tool refusing its command line: message on stderr, exit code 64. */
export function refuse(tool, message) {
  process.stderr.write(`${tool} double: argv refused: ${message}\n`);
  process.exit(64);
}

/**
 * Reads `argv` against a table of known flags: `{ '-o': 'value', '-silent': 'switch' }`. A flag
 * written `--name=value` is split. Returns `{ flags: Map<name, string[]>, positionals }`; an
 * unknown flag, or a value flag without its value, is refused. After `--` everything is positional.
 */
export function readArgv(tool, argv, known) {
  const flags = new Map();
  const positionals = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const kind = known[name];
    if (kind === undefined) {
      refuse(tool, `unknown flag ${name}`);
    }
    let value = '';
    if (kind === 'value') {
      if (eq !== -1) {
        value = arg.slice(eq + 1);
      } else {
        i += 1;
        if (i >= argv.length) {
          refuse(tool, `${name} needs a value`);
        }
        value = argv[i];
      }
    } else if (eq !== -1) {
      refuse(tool, `${name} takes no value`);
    }
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { flags, positionals };
}

/** The one value of a flag that must be given exactly once. */
export function one(tool, flags, name) {
  const values = flags.get(name) ?? [];
  if (values.length !== 1) {
    refuse(tool, `${name} must be given once, got ${values.length}`);
  }
  return values[0];
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Logs the argv (when asked), prints the configured lines, waits, copies the fixture to
 * `reportPath` (creating its folder), and exits with the configured code.
 */
export async function replay(reportPath) {
  const s = settings();
  if (s.argvLog) {
    appendFileSync(s.argvLog, `${JSON.stringify(process.argv.slice(2))}\n`);
  }
  for (const line of s.stdoutLines ?? []) {
    process.stdout.write(`${line}\n`);
    if (s.lineDelayMs) {
      await sleep(s.lineDelayMs);
    }
  }
  for (const line of s.stderrLines ?? []) {
    process.stderr.write(`${line}\n`);
    if (s.lineDelayMs) {
      await sleep(s.lineDelayMs);
    }
  }
  if (s.holdMs) {
    await sleep(s.holdMs);
  }
  if (s.fixture && reportPath) {
    mkdirSync(dirname(reportPath), { recursive: true });
    copyFileSync(s.fixture, reportPath);
  }
  process.exit(s.exitCode ?? 0);
}
