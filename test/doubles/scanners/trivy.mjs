// TEST DOUBLE of trivy (aquasecurity/trivy), which cannot be installed on this machine. It is NOT
// trivy and scans nothing: it checks its argv against trivy's real command line (the flags of
// `trivy image` and `trivy repository` as documented in trivy's CLI reference, including the
// flags inherited from the root command), refuses anything off that contract with exit code 64,
// and then replays a real trivy JSON report from ../shared/fixtures/scanner-output/trivy/ to the
// `--output` path, printing the log lines and exiting with the code its settings name.
//
// Stricter than trivy on purpose (Rampart's contract, not trivy's): the report must go to a file
// in JSON (`--format json --output <file>`), and the target must be the one argument after `--`.
import { readArgv, refuse, replay } from './double-kit.mjs';

const TOOL = 'trivy';

/** Flags of trivy's root command, inherited by every subcommand. */
const GLOBAL_FLAGS = {
  '--cache-dir': 'value',
  '-c': 'value',
  '--config': 'value',
  '-d': 'switch',
  '--debug': 'switch',
  '--generate-default-config': 'switch',
  '--insecure': 'switch',
  '-q': 'switch',
  '--quiet': 'switch',
  '--timeout': 'value',
  '-v': 'switch',
  '--version': 'switch',
};

/** Flags `trivy image` and `trivy repository` both take (report, scan, DB, secret, auth). */
const SCAN_FLAGS = {
  '-f': 'value',
  '--format': 'value',
  '-o': 'value',
  '--output': 'value',
  '-t': 'value',
  '--template': 'value',
  '-s': 'value',
  '--severity': 'value',
  '--scanners': 'value',
  '--ignore-unfixed': 'switch',
  '--ignore-status': 'value',
  '--ignorefile': 'value',
  '--ignore-policy': 'value',
  '--skip-dirs': 'value',
  '--skip-files': 'value',
  '--file-patterns': 'value',
  '--no-progress': 'switch',
  '--exit-code': 'value',
  '--list-all-pkgs': 'switch',
  '--dependency-tree': 'switch',
  '--include-non-failures': 'switch',
  '--offline-scan': 'switch',
  '--skip-db-update': 'switch',
  '--skip-java-db-update': 'switch',
  '--download-db-only': 'switch',
  '--db-repository': 'value',
  '--java-db-repository': 'value',
  '--secret-config': 'value',
  '--license-full': 'switch',
  '--server': 'value',
  '--token': 'value',
  '--username': 'value',
  '--password': 'value',
  '--registry-token': 'value',
};

/** Flags only one subcommand has (trivy answers `unknown flag` to the others). */
const SUBCOMMANDS = {
  image: {
    '--image-src': 'value',
    '--input': 'value',
    '--platform': 'value',
    '--removed-pkgs': 'switch',
    '--docker-host': 'value',
    '--podman-host': 'value',
    '--image-config-scanners': 'value',
    '--exit-on-eol': 'value',
  },
  repository: {
    '--branch': 'value',
    '--commit': 'value',
    '--tag': 'value',
    '--include-dev-deps': 'switch',
  },
};
const ALIASES = { i: 'image', repo: 'repository' };

/** `--scanners` values trivy knows, with the aliases it accepts (aquasecurity/trivy#5558). */
const SCANNERS = new Set([
  'vuln',
  'vulnerability',
  'misconfig',
  'misconf',
  'misconfiguration',
  'config',
  'secret',
  'license',
]);
const SEVERITIES = new Set(['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL']);
const IMAGE_SOURCES = new Set(['docker', 'containerd', 'podman', 'remote']);
/** A Go duration (`time.ParseDuration`), as `--timeout` takes it. */
const GO_DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;

/** The values of a flag given as `--long` or `-s`, in order. */
function valuesOf(flags, ...names) {
  return names.flatMap((name) => flags.get(name) ?? []);
}

/** The value of a flag that must be given exactly once (in either spelling). */
function exactlyOnce(flags, ...names) {
  const values = valuesOf(flags, ...names);
  if (values.length !== 1) {
    refuse(TOOL, `${names.join('/')} must be given once, got ${values.length}`);
  }
  return values[0];
}

/** Checks each comma-separated item of a list flag (pflag StringSlice) against `allowed`. */
function checkList(flags, allowed, ...names) {
  for (const value of valuesOf(flags, ...names)) {
    for (const item of value.split(',')) {
      if (!allowed.has(item)) {
        refuse(TOOL, `${names[0]} does not take ${JSON.stringify(item)}`);
      }
    }
  }
}

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
  process.stdout.write('Version: 0.56.2 (test double)\n');
  process.exit(0);
}
const subcommand = ALIASES[args[0]] ?? args[0];
if (subcommand === undefined || !Object.hasOwn(SUBCOMMANDS, subcommand)) {
  refuse(TOOL, `unknown or missing subcommand ${JSON.stringify(args[0] ?? '')}`);
}
const rest = args.slice(1);
const { flags, positionals } = readArgv(TOOL, rest, {
  ...GLOBAL_FLAGS,
  ...SCAN_FLAGS,
  ...SUBCOMMANDS[subcommand],
});

const format = exactlyOnce(flags, '--format', '-f');
if (format !== 'json') {
  refuse(TOOL, `this double replays JSON reports only, not --format ${format}`);
}
const output = exactlyOnce(flags, '--output', '-o');
if (output === '' || output.startsWith('-')) {
  refuse(TOOL, `--output ${JSON.stringify(output)} is no file`);
}
const separator = rest.indexOf('--');
if (separator === -1 || separator !== rest.length - 2 || positionals.length !== 1) {
  refuse(TOOL, 'the target must be the one argument after --');
}
if (positionals[0] === '') {
  refuse(TOOL, 'the target is empty');
}
checkList(flags, SCANNERS, '--scanners');
checkList(flags, SEVERITIES, '--severity', '-s');
checkList(flags, IMAGE_SOURCES, '--image-src');
for (const timeout of valuesOf(flags, '--timeout')) {
  if (!GO_DURATION.test(timeout)) {
    refuse(TOOL, `--timeout ${JSON.stringify(timeout)} is not a duration`);
  }
}

await replay(output);
