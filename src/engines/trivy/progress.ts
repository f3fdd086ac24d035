/**
 * Scan progress from trivy's log lines. trivy prints no percentage for the scan itself (its
 * progress bars only count download bytes, and `--no-progress` turns them off), but without
 * `--quiet` it logs each phase on stderr as it enters it, e.g. trivy 0.6x:
 *
 *     2024-08-21T23:55:57Z  INFO  [vulndb] Need to update DB
 *     2024-08-21T23:55:57Z  INFO  [vulndb] Downloading vulnerability DB...
 *     2024-08-21T23:56:02Z  INFO  [vulndb] Artifact successfully downloaded  repo="ghcr.io/aquasecurity/trivy-db:2"
 *     2024-08-21T23:56:02Z  INFO  [vuln] Vulnerability scanning is enabled
 *     2024-08-21T23:56:02Z  INFO  [secret] Secret scanning is enabled
 *     2024-08-21T23:56:09Z  INFO  [javadb] Downloading Java DB...
 *     2024-08-21T23:56:30Z  INFO  Detected OS  family="alpine" version="3.11.10"
 *     2024-08-21T23:56:30Z  INFO  [alpine] Detecting vulnerabilities...  os_version="3.11" pkg_num=16
 *     2024-08-21T23:56:30Z  INFO  Number of language-specific files  num=1
 *     2024-08-21T23:56:30Z  INFO  [node-pkg] Detecting vulnerabilities...
 *     2024-08-21T23:56:31Z  INFO  Detected config files  num=2
 *
 * (fields are tab-separated). Releases before the 2024 logger rewrite wrote the same messages
 * without the `[component]` prefix and with `:` before values: `Detected OS: alpine`,
 * `Detecting Alpine vulnerabilities...`, `Number of language-specific files: 1`,
 * `Downloading DB...`. Each phase is a fixed point of the run; the long stretch between "scanning
 * is enabled" and "Detected OS" (pulling and analysing the image, or cloning the repository) logs
 * nothing, so the value stands still there. The points are a rough guide, not a measurement.
 */

interface PhasePoint {
  readonly message: RegExp;
  readonly percent: number;
}

/** In the order trivy runs the phases; first match wins. */
const PHASE_POINTS: readonly PhasePoint[] = [
  // The vulnerability database (absent when the cache is fresh).
  { message: /\bNeed to update DB\b/, percent: 2 },
  { message: /\bDownloading (vulnerability )?DB\b/, percent: 5 },
  { message: /\[vulndb\] Artifact successfully downloaded\b/, percent: 15 },
  // Scanners announced, then the misconfiguration checks bundle (older: built-in policies).
  {
    message: /\b(Vulnerability|Secret|Misconfiguration|License) scanning is enabled\b/,
    percent: 20,
  },
  { message: /\bDownloading the (checks bundle|built-in policies)\b/, percent: 22 },
  // The Java index is fetched while the artifact is analysed, when a jar is found.
  { message: /\bDownloading (the )?Java DB\b/, percent: 40 },
  // Analysis done: detection for the OS packages, then per language ecosystem (the same
  // "Detecting vulnerabilities" message, so both share one point), then config files.
  { message: /\bDetected OS\b/, percent: 70 },
  { message: /\bDetecting\b.*\bvulnerabilities\b/, percent: 80 },
  { message: /\bNumber of language-specific files\b/, percent: 80 },
  { message: /\bDetected config files\b/, percent: 90 },
];

/**
 * The run's progress (an integer 0..99) from one line of trivy's log, or null for any other line.
 * Never 100: only completion is. Over a run's lines in trivy's order the values never decrease;
 * a caller still keeps the highest value seen.
 * @example parseTrivyProgress('2024-08-21T23:55:57Z\tINFO\tDetected OS\tfamily="alpine"') // 70
 */
export function parseTrivyProgress(line: string): number | null {
  const point = PHASE_POINTS.find((candidate) => candidate.message.test(line));
  return point === undefined ? null : point.percent;
}
