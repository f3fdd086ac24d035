// TEST DOUBLE of nuclei (ProjectDiscovery, v3), which cannot be installed on this machine. It is
// NOT nuclei: it checks its argv against nuclei 3's real command line and then replays a real
// nuclei output file from ../shared/fixtures/scanner-output/nuclei/ to where nuclei would write it.
//
// The flag table lists only flags that exist in nuclei 3 (`cmd/nuclei/main.go`, goflags: each
// flag has a long and often a short name, both spelled with one dash; Go's flag package also takes
// `-name=value`). The double refuses (exit 64) an unknown flag, a value flag without its value, a
// positional argument (nuclei has no positional target: anything after it would not be parsed as
// a flag either), a missing or repeated target or report file, output that is not JSON lines, and
// values nuclei itself would reject (non-integer numbers, unknown severities). Like goflags, it
// splits `-u` on commas and refuses when that would give more than the one target Rampart meant.
// Stricter than nuclei on purpose (Rampart's contract, not nuclei's): interactsh must be off (`-ni`).
import { one, readArgv, refuse, replay } from './double-kit.mjs';

const TOOL = 'nuclei';

/** Real nuclei 3 flags: 'value' takes an argument, 'switch' does not. */
const KNOWN_FLAGS = {
  // Target
  '-u': 'value',
  '-target': 'value',
  '-l': 'value',
  '-list': 'value',
  '-eh': 'value',
  '-exclude-hosts': 'value',
  // Templates and filters
  '-t': 'value',
  '-templates': 'value',
  '-w': 'value',
  '-workflows': 'value',
  '-tags': 'value',
  '-etags': 'value',
  '-exclude-tags': 'value',
  '-id': 'value',
  '-template-id': 'value',
  '-eid': 'value',
  '-exclude-id': 'value',
  '-s': 'value',
  '-severity': 'value',
  '-es': 'value',
  '-exclude-severity': 'value',
  '-pt': 'value',
  '-type': 'value',
  // Configurations: a custom header, or a file of them (`-H` takes "cli, file")
  '-H': 'value',
  '-header': 'value',
  // Output
  '-o': 'value',
  '-output': 'value',
  '-silent': 'switch',
  '-nc': 'switch',
  '-no-color': 'switch',
  '-j': 'switch',
  '-jsonl': 'switch',
  '-or': 'switch',
  '-omit-raw': 'switch',
  '-ot': 'switch',
  '-omit-template': 'switch',
  '-je': 'value',
  '-json-export': 'value',
  '-jle': 'value',
  '-jsonl-export': 'value',
  '-ms': 'switch',
  '-matcher-status': 'switch',
  // Rate limits and optimizations
  '-c': 'value',
  '-concurrency': 'value',
  '-rl': 'value',
  '-rate-limit': 'value',
  '-bs': 'value',
  '-bulk-size': 'value',
  '-timeout': 'value',
  '-retries': 'value',
  '-ni': 'switch',
  '-no-interactsh': 'switch',
  '-lna': 'switch',
  '-restrict-local-network-access': 'switch',
  '-no-stdin': 'switch',
  // Update
  '-duc': 'switch',
  '-disable-update-check': 'switch',
  '-ud': 'value',
  '-update-template-dir': 'value',
  // Statistics
  '-stats': 'switch',
  '-sj': 'switch',
  '-stats-json': 'switch',
  '-si': 'value',
  '-stats-interval': 'value',
  '-mp': 'value',
  '-metrics-port': 'value',
  // Debug
  '-version': 'switch',
  '-v': 'switch',
  '-verbose': 'switch',
};

const SEVERITIES = new Set(['info', 'low', 'medium', 'high', 'critical', 'unknown']);
const INTEGER_FLAGS = [
  ['-c', '-concurrency'],
  ['-rl', '-rate-limit'],
  ['-si', '-stats-interval'],
  ['-bs', '-bulk-size'],
  ['-timeout'],
  ['-retries'],
];

/** All values of a flag given by either of its names. */
function values(flags, ...names) {
  return names.flatMap((name) => flags.get(name) ?? []);
}

/** The one value of a flag given once, by either of its names. */
function single(flags, ...names) {
  const given = names.filter((name) => flags.has(name));
  if (given.length > 1) {
    refuse(TOOL, `${names.join('/')} given under two names`);
  }
  return given.length === 0 ? undefined : one(TOOL, flags, given[0]);
}

/** goflags `CommaSeparatedStringSliceOptions`: parts split on commas, a quoted part kept whole. */
function targetsOf(value) {
  const parts = value.split(',').filter((part) => part.trim() !== '');
  for (const part of parts) {
    if (/^["'`]/.test(part)) {
      refuse(TOOL, `-u part ${JSON.stringify(part)} starts with a quote`);
    }
  }
  return parts;
}

const { flags, positionals } = readArgv(TOOL, process.argv.slice(2), KNOWN_FLAGS);

if (flags.has('-version')) {
  process.stderr.write('[INF] Nuclei Engine Version: v3.3.7 (test double)\n');
  process.exit(0);
}
if (positionals.length > 0) {
  refuse(TOOL, `nuclei takes no positional arguments, got ${JSON.stringify(positionals)}`);
}

const targetValues = values(flags, '-u', '-target');
const lists = values(flags, '-l', '-list');
if (targetValues.length + lists.length === 0) {
  refuse(TOOL, 'no target: -u or -l is required');
}
const targets = targetValues.flatMap(targetsOf);
if (targets.length + lists.length !== 1) {
  refuse(TOOL, `expected exactly one target, got ${JSON.stringify([...targets, ...lists])}`);
}

const report = single(flags, '-o', '-output');
if (report === undefined || report === '') {
  refuse(TOOL, 'no report file: -o is required');
}
if (!flags.has('-jsonl') && !flags.has('-j')) {
  refuse(TOOL, 'the report would be screen text: -jsonl (or -j) is required');
}
if (!flags.has('-ni') && !flags.has('-no-interactsh')) {
  refuse(TOOL, 'interactsh would tell a third party which hosts are scanned: -ni is required');
}

for (const names of INTEGER_FLAGS) {
  for (const value of values(flags, ...names)) {
    if (!/^-?[0-9]+$/.test(value)) {
      refuse(TOOL, `invalid value ${JSON.stringify(value)} for ${names[0]}: not an integer`);
    }
  }
}
for (const value of values(flags, '-severity', '-s', '-es', '-exclude-severity')) {
  for (const severity of value.split(',')) {
    if (!SEVERITIES.has(severity.trim().toLowerCase())) {
      refuse(TOOL, `invalid severity ${JSON.stringify(severity)}`);
    }
  }
}

await replay(report);
