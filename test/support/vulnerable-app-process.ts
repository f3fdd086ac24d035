/**
 * Starts the deliberately vulnerable test app in a child process (vulnerable-app-main.ts) and
 * answers its URL; `close` stops it. See vulnerable-app-main.ts for why a process of its own.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { VulnerableApp } from './vulnerable-app.js';

const MAIN = fileURLToPath(new URL('./vulnerable-app-main.ts', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

export async function startVulnerableAppProcess(timeoutMs = 60_000): Promise<VulnerableApp> {
  const child = spawn(TSX, [MAIN], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the vulnerable app did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const line = seen.split('\n').find((candidate) => candidate.startsWith('http://'));
      if (line !== undefined) {
        clearTimeout(timer);
        resolve(line.trim());
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the vulnerable app exited with ${code} before it started`));
    });
  });
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
