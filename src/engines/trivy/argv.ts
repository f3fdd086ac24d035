/**
 * The trivy command line: typed options and a validated target in, the arguments after the binary
 * name out. Pure; the worker spawns it without a shell. The contract is in README.md.
 */
import type { ScanTarget } from '../../domain/targets/target.js';
import type { TrivyOptions } from './options.js';

export interface TrivyArgvContext {
  /** Where trivy writes its JSON report (`--output`), inside the scan's private workspace. */
  readonly reportPath: string;
}

/**
 * trivy's own time limit. Its default (`--timeout 5m`) would end a large image scan long before
 * the scan's own timeout (default 1800 s, at most 86400 s) with exit code 1 and no report; the
 * worker enforces the real limit, so trivy's is set to the largest scan timeout there is.
 */
export const TRIVY_TIMEOUT = '24h';

/**
 * The trivy subcommand per target type, with the flags only that subcommand takes.
 * - `image`: a container image reference, pulled from its registry. `--image-src remote` keeps
 *   trivy from looking first in a Docker, containerd or Podman daemon on the worker (its default
 *   order), so a tenant can only ever scan what the registry serves, never an image that happens
 *   to be on the worker.
 * - `url`: a remote git repository (`trivy repository`, which clones it into TMPDIR, the scan's
 *   workspace): of trivy's targets only a repository is named by a URL. `trivy fs`/`rootfs` scan
 *   paths on the worker, which no tenant may name, so they are not offered.
 */
const SUBCOMMANDS: Readonly<
  Partial<Record<ScanTarget['type'], { readonly name: string; readonly flags: readonly string[] }>>
> = {
  image: { name: 'image', flags: ['--image-src', 'remote'] },
  url: { name: 'repository', flags: [] },
};

/**
 * Each option's flags, in command-line order. Keyed by option name so the compiler rejects an
 * option without an entry. Values are glued to their flag with `=` (pflag accepts both forms), so
 * no value can ever be read as a flag of its own.
 */
const OPTION_FLAGS: { readonly [K in keyof TrivyOptions]-?: (options: TrivyOptions) => string[] } =
  {
    scanners: (o) => [`--scanners=${o.scanners.join(',')}`],
    severity: (o) => [`--severity=${o.severity.join(',')}`],
    ignoreUnfixed: (o) => (o.ignoreUnfixed ? ['--ignore-unfixed'] : []),
    // One flag per path: pflag reads each value as a comma-separated list (the schema refuses
    // commas, so a value is always exactly one path), and separate flags stay readable in logs.
    skipDirs: (o) => o.skipDirs.map((path) => `--skip-dirs=${path}`),
    skipFiles: (o) => o.skipFiles.map((path) => `--skip-files=${path}`),
  };

/**
 * The trivy arguments for one scan, e.g. for `{ type: 'image', value: 'alpine:3.19' }` with
 * defaults: `image --format json --output <file> --no-progress --timeout 24h --image-src remote
 * --scanners=vuln --severity=CRITICAL,HIGH,MEDIUM -- alpine:3.19`.
 *
 * `--no-progress` drops the download progress bars and the git clone progress but keeps trivy's
 * log lines on stderr, from which `parseTrivyProgress` reads the phase. The target comes last,
 * after `--`: trivy's flag parser (cobra/pflag) treats everything after `--` as positional, so
 * even a value starting with `-` could only be the target.
 * Throws for a target type trivy does not take: the engine definition already excludes those.
 */
export function buildTrivyArgv(
  options: TrivyOptions,
  target: ScanTarget,
  context: TrivyArgvContext,
): string[] {
  const subcommand = SUBCOMMANDS[target.type];
  if (subcommand === undefined) {
    throw new Error(`trivy does not scan ${target.type} targets`);
  }
  const optionFlags = Object.values(OPTION_FLAGS).flatMap((flags) => flags(options));
  return [
    subcommand.name,
    '--format',
    'json',
    '--output',
    context.reportPath,
    '--no-progress',
    '--timeout',
    TRIVY_TIMEOUT,
    ...subcommand.flags,
    ...optionFlags,
    '--',
    target.value,
  ];
}
