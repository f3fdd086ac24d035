/**
 * Installs a named scanner test double on a PATH directory of the test's own. A double stands in
 * for a scanner that cannot be installed here (ZAP, trivy, nuclei, nikto, theHarvester): it is a
 * real executable, spawned by the real process runner without a shell, that checks the argv it
 * receives against the tool's documented command line and then replays a real output file from
 * `../shared/fixtures/scanner-output/` to where the tool would write it.
 *
 * The runner passes scanners only an allowlisted environment, so a double's settings cannot come
 * from the test's environment: each installed executable is a two-line Node script with its
 * settings written in, which then runs the tool's double (`test/doubles/scanners/<tool>.mjs`).
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The doubles' scripts (`<tool>.mjs`, `double-kit.mjs`): a sandboxed run must see this directory. */
export const DOUBLE_SCRIPTS = HERE;

/** What a double does once its argv check passed; every field is optional. */
export interface DoubleSettings {
  /** Absolute path of the real output to replay. */
  readonly fixture?: string;
  /** Exit code after replaying (default 0). */
  readonly exitCode?: number;
  /** Lines printed on stdout / stderr before the report is written (progress, logs). */
  readonly stdoutLines?: readonly string[];
  readonly stderrLines?: readonly string[];
  /** Pause between printed lines, ms (default 0). */
  readonly lineDelayMs?: number;
  /** After printing, wait this long before writing the report (a long scan; cancel tests). */
  readonly holdMs?: number;
  /** Where the double appends the argv it received, one JSON array per line (for assertions). */
  readonly argvLog?: string;
}

/**
 * Writes `<binDir>/<binary>` running `test/doubles/scanners/<tool>.mjs` with `settings`.
 * @example await installScannerDouble(bin, 'trivy', 'trivy', { fixture: sharedPath(...) })
 */
export async function installScannerDouble(
  binDir: string,
  binary: string,
  tool: string,
  settings: DoubleSettings,
): Promise<string> {
  await mkdir(binDir, { recursive: true });
  const path = join(binDir, binary);
  const script = pathToFileURL(join(HERE, `${tool}.mjs`)).href;
  // CommonJS (the file has no extension and sits outside the package): dynamic import works there.
  const source = [
    '#!/usr/bin/env node',
    `process.env.RAMPART_DOUBLE_SETTINGS = ${JSON.stringify(JSON.stringify(settings))};`,
    `import(${JSON.stringify(script)});`,
    '',
  ].join('\n');
  await writeFile(path, source);
  await chmod(path, 0o755);
  return path;
}

/** A PATH whose first entry is `binDir`, then the system directories (node must be found). */
export function pathWith(binDir: string, systemPath: string | undefined): string {
  return [binDir, dirname(process.execPath), systemPath ?? '/usr/local/bin:/usr/bin:/bin'].join(
    ':',
  );
}
