import { describe, expect, it } from 'vitest';
import { parseTrivyProgress } from './progress.js';

/** Log lines of trivy 0.6x (tab-separated, as trivy writes them to stderr without a terminal). */
const CURRENT_RUN = [
  '2026-08-13T20:58:55Z\tINFO\t[vulndb] Need to update DB',
  '2026-08-13T20:58:55Z\tINFO\t[vulndb] Downloading vulnerability DB...',
  '2026-08-13T20:58:55Z\tINFO\t[vulndb] Downloading artifact...\trepo="ghcr.io/aquasecurity/trivy-db:2"',
  '2026-08-13T20:59:00Z\tINFO\t[vulndb] Artifact successfully downloaded\trepo="ghcr.io/aquasecurity/trivy-db:2"',
  '2026-08-13T20:59:00Z\tINFO\t[vuln] Vulnerability scanning is enabled',
  '2026-08-13T20:59:00Z\tINFO\t[secret] Secret scanning is enabled',
  "2026-08-13T20:59:00Z\tINFO\t[secret] If your scanning is slow, please try '--scanners vuln' to disable secret scanning",
  '2026-08-13T20:59:08Z\tINFO\t[javadb] Downloading Java DB...',
  '2026-08-13T20:59:27Z\tINFO\t[javadb] Artifact successfully downloaded\trepo="ghcr.io/aquasecurity/trivy-java-db:1"',
  '2026-08-13T20:59:30Z\tINFO\tDetected OS\tfamily="amazon" version="2023.12.20260727 (Amazon Linux)"',
  '2026-08-13T20:59:30Z\tINFO\t[amazon] Detecting vulnerabilities...\tos_version="2023" pkg_num=142',
  '2026-08-13T20:59:30Z\tINFO\tNumber of language-specific files\tnum=2',
  '2026-08-13T20:59:30Z\tINFO\t[gobinary] Detecting vulnerabilities...',
  '2026-08-13T20:59:30Z\tINFO\t[jar] Detecting vulnerabilities...',
  '2026-08-13T20:59:30Z\tWARN\tUsing severities from other vendors for some vulnerabilities. Read https://trivy.dev/docs/v0.72/guide/scanner/vulnerability#severity-selection for details.',
];

describe('parseTrivyProgress', () => {
  it.each<[string]>([
    ...CURRENT_RUN.map((line): [string] => [line]),
    // trivy 0.3x/0.4x wrote the messages without a component and with `:` before values.
    ['2022-10-25T21:00:50.972+0300\tINFO\tNeed to update DB'],
    ['2022-10-25T21:00:50.972+0300\tINFO\tDownloading DB...'],
    ['2022-10-25T21:00:56.190+0300\tINFO\tDetected OS: alpine'],
    ['2022-10-25T21:00:56.190+0300\tINFO\tDetecting Alpine vulnerabilities...'],
    ['2023-10-12T06:07:04.287-0400\tINFO\tNumber of language-specific files: 0'],
    ['2023-10-12T06:07:04.287-0400\tINFO\tDetected config files: 0'],
    ['2026-03-12T01:10:19Z\tINFO\t[misconfig] Misconfiguration scanning is enabled'],
    ['2026-03-12T01:10:19Z\tINFO\t[checks-client] Downloading the checks bundle...'],
    ['2026-03-12T01:10:42Z\tINFO\tDetected config files\tnum=20'],
  ])('reads %j as 0..99 or null', (line) => {
    const value = parseTrivyProgress(line);
    expect(value === null || (Number.isInteger(value) && value >= 0 && value <= 99)).toBe(true);
  });

  it.each([
    ['2026-08-13T20:58:55Z\tINFO\t[vulndb] Need to update DB', 2],
    ['2026-08-13T20:58:55Z\tINFO\t[vulndb] Downloading vulnerability DB...', 5],
    ['2022-10-25T21:00:50.972+0300\tINFO\tDownloading DB...', 5],
    [
      '2026-08-13T20:59:00Z\tINFO\t[vulndb] Artifact successfully downloaded\trepo="ghcr.io/aquasecurity/trivy-db:2"',
      15,
    ],
    ['2026-08-13T20:59:00Z\tINFO\t[vuln] Vulnerability scanning is enabled', 20],
    ['2022-10-25T21:00:50.972+0300\tINFO\tSecret scanning is enabled', 20],
    ['2026-03-12T01:10:19Z\tINFO\t[misconfig] Misconfiguration scanning is enabled', 20],
    ['2026-03-12T01:10:19Z\tINFO\t[checks-client] Downloading the checks bundle...', 22],
    ['2025-12-12T23:05:37Z\tINFO\tDownloading the built-in policies...', 22],
    ['2026-08-13T20:59:08Z\tINFO\t[javadb] Downloading Java DB...', 40],
    ['2026-08-13T20:59:30Z\tINFO\tDetected OS\tfamily="alpine" version="3.19.1"', 70],
    ['2022-10-25T21:00:56.190+0300\tINFO\tDetected OS: alpine', 70],
    ['2026-08-13T20:59:30Z\tINFO\t[alpine] Detecting vulnerabilities...\tos_version="3.19"', 80],
    ['2022-10-25T21:00:56.190+0300\tINFO\tDetecting Alpine vulnerabilities...', 80],
    ['2026-08-13T20:59:30Z\tINFO\t[gobinary] Detecting vulnerabilities...', 80],
    ['2026-08-13T20:59:30Z\tINFO\tNumber of language-specific files\tnum=1', 80],
    ['2026-08-13T20:59:30Z\tINFO\tDetected config files\tnum=2', 90],
    // Older releases coloured the level even without a terminal.
    ['2023-10-18T21:34:31.165+0200\t\u001b[34mINFO\u001b[0m\tDetected OS: alpine', 70],
    // The runner strips a trailing \r; a line without the timestamp still counts.
    ['INFO\t[vuln] Vulnerability scanning is enabled', 20],
  ])('reads %j as %i', (line, expected) => {
    expect(parseTrivyProgress(line)).toBe(expected);
  });

  it.each([
    ['an empty line', ''],
    ['the java DB download finishing', CURRENT_RUN[8] ?? ''],
    ['the slow-secret hint', CURRENT_RUN[6] ?? ''],
    ['a warning', CURRENT_RUN[14] ?? ''],
    [
      'a fatal error',
      '2026-08-13T20:59:30Z\tFATAL\tFatal error\timage scan error: unable to find the specified image',
    ],
    ['a report line', '{"SchemaVersion": 2,'],
  ])('gives null for %s', (_name, line) => {
    expect(parseTrivyProgress(line)).toBeNull();
  });

  it('never goes back over the lines of a real run, and never reaches 100', () => {
    const values = CURRENT_RUN.map(parseTrivyProgress).filter((value) => value !== null);
    expect(values).toEqual([2, 5, 15, 20, 20, 40, 70, 80, 80, 80, 80]);
  });

  it('never goes back over the lines of a pre-2024 run', () => {
    const lines = [
      'Need to update DB',
      'Downloading DB...',
      'Vulnerability scanning is enabled',
      'Secret scanning is enabled',
      'Detected OS: alpine',
      'Detecting Alpine vulnerabilities...',
      'Number of language-specific files: 1',
      'Detecting node-pkg vulnerabilities...',
      'Detected config files: 1',
    ].map((message) => `2023-10-12T06:07:04.287-0400\tINFO\t${message}`);
    expect(lines.map(parseTrivyProgress)).toEqual([2, 5, 20, 20, 70, 80, 80, 80, 90]);
  });
});
