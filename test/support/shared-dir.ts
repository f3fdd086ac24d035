/**
 * Where the project's shared material lives (the contract under `spec/`, the real scanner output
 * under `fixtures/scanner-output/`). It sits beside the checkout as `../shared`; a checkout made
 * elsewhere names it with RAMPART_SHARED_DIR. Tests that need it fail loudly when it cannot be
 * found: they are never skipped.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const MARKER = join('spec', 'decisions.md');

function findSharedDir(): string {
  const fromEnv = process.env.RAMPART_SHARED_DIR;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!existsSync(join(fromEnv, MARKER))) {
      throw new Error(`RAMPART_SHARED_DIR=${fromEnv} holds no ${MARKER}`);
    }
    return resolve(fromEnv);
  }
  // Walk up from test/support/: the shared folder is a sibling of the checkout or of a parent.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'shared');
    if (existsSync(join(candidate, MARKER))) {
      return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error(
        `no shared/${MARKER} beside this checkout or any parent folder; set RAMPART_SHARED_DIR`,
      );
    }
    dir = parent;
  }
}

/** Absolute path of a file under the shared folder, e.g. `sharedPath('spec', 'decisions.md')`. */
export function sharedPath(...parts: string[]): string {
  return join(findSharedDir(), ...parts);
}
