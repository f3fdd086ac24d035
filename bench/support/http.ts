/** The built server (dist/main/server.js) as a benchmark spawns it, and waiting for it to answer. */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { schemaUrl } from './database.js';

/** Resolves once `url` answers 2xx; throws if `child` exits first or after about 60 s. */
export async function waitForHttp(url: string, child: ChildProcess): Promise<void> {
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  for (let i = 0; i < 300 && !exited; i++) {
    try {
      if ((await fetch(url)).ok) {
        return;
      }
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not come up`);
}

export interface BuiltServer {
  /** The checkout whose dist/main/server.js runs (its working directory too). */
  readonly root: string;
  readonly port: number;
  /** Its database: this schema of the benches' PostgreSQL. */
  readonly schema: string;
  readonly jwtSecret: string;
  /** Node flags before the script (a heap limit, say). */
  readonly nodeFlags?: readonly string[];
  /** More settings; the server is API only (WORKERS=0: created scans stay queued) unless set. */
  readonly env?: Readonly<Record<string, string>>;
  /** Where its standard output goes (its errors always reach the bench's). */
  readonly stdout?: 'inherit' | 'ignore';
}

/** Starts the built server and resolves once /readyz answers (kills it if it never does). */
export async function startBuiltServer(server: BuiltServer): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...(server.nodeFlags ?? []), join(server.root, 'dist/main/server.js')],
    {
      cwd: server.root,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(server.port),
        JWT_SECRET: server.jwtSecret,
        LOG_LEVEL: 'warn',
        WORKERS: '0',
        DATABASE_URL: schemaUrl(server.schema),
        ...server.env,
      },
      stdio: ['ignore', server.stdout ?? 'inherit', 'inherit'],
    },
  );
  try {
    await waitForHttp(`http://127.0.0.1:${server.port}/readyz`, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return child;
}
