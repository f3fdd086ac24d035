#!/usr/bin/env node
// The `rampart` command: runs the built CLI when `npm run build` has run, else the TypeScript
// source through tsx (installed with the dev dependencies by `npm install`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (existsSync(built)) {
  await import(built);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
