/**
 * Finds each engine's binary on PATH and reads its version once, at start. Probes run with an
 * argument array (never a shell), a short timeout and a minimal environment: the service's own
 * environment holds DATABASE_URL, JWT_SECRET and the like, which no scanner process may see.
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { EngineDefinition, EngineName } from '../../engines/engine.js';

export interface BinaryProbe {
  readonly installed: boolean;
  readonly version: string | null;
  readonly path: string | null;
}

/** The first executable `binary` in the directories of `pathEnv`, or null. */
export async function findOnPath(binary: string, pathEnv: string): Promise<string | null> {
  for (const dir of pathEnv.split(delimiter).filter((d) => d !== '')) {
    const candidate = join(dir, binary);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

function readVersion(path: string, args: readonly string[], pathEnv: string, timeoutMs: number) {
  return new Promise<string | null>((resolve) => {
    execFile(
      path,
      [...args],
      {
        timeout: timeoutMs,
        env: { PATH: pathEnv, HOME: '/tmp', LANG: 'C' },
        maxBuffer: 1024 * 1024,
      },
      (_error, stdout, stderr) => {
        const match = /\d+\.\d+(?:\.\d+)?(?:[.#-][0-9A-Za-z]+)?/.exec(`${stdout}\n${stderr}`);
        resolve(match ? match[0] : null);
      },
    );
  });
}

/** Probes every engine in parallel; an engine that runs others (no binary) reports installed. */
export async function probeEngineBinaries(
  engines: readonly EngineDefinition[],
  options: { pathEnv?: string; timeoutMs?: number } = {},
): Promise<Map<EngineName, BinaryProbe>> {
  const pathEnv = options.pathEnv ?? process.env.PATH ?? '';
  const timeoutMs = options.timeoutMs ?? 5000;
  const entries = await Promise.all(
    engines.map(async (engine): Promise<[EngineName, BinaryProbe]> => {
      if (engine.kind !== 'tool') {
        return [engine.name, { installed: true, version: null, path: null }];
      }
      const path = await findOnPath(engine.binary, pathEnv);
      if (path === null) {
        return [engine.name, { installed: false, version: null, path: null }];
      }
      const version =
        engine.versionArgs.length > 0
          ? await readVersion(path, engine.versionArgs, pathEnv, timeoutMs)
          : null;
      return [engine.name, { installed: true, version, path }];
    }),
  );
  return new Map(entries);
}
