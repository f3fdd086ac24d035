/**
 * The typed client (src/client, `rampart/client`) against a listening server: a dashboard token
 * creates a key, the key creates, reads, lists a scan and reads its results, and failures come back
 * as RampartApiError with the contract's code and status. The client's option types refuse a wrong
 * credential at compile time (a small file compiled here with the TypeScript compiler).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createRampartClient,
  RampartApiError,
  type RampartClient,
  unwrap,
} from '../../src/client/index.js';
import { draftFinding, instantEngine } from '../doubles/engines.js';
import { tokenFor, useTestApp, withinOneMinuteWindow } from '../support/harness.js';

// Scans complete at once in the instant test engine, with one finding.
const ctx = useTestApp(
  // Two failed authentications a minute per address, then 429 with Retry-After.
  { ALLOW_PRIVATE_TARGETS: 'true', WORKERS: '1', AUTH_FAILURES_PER_MINUTE: '2' },
  { engineRunners: new Map([['nmap', instantEngine(() => [draftFinding()])]]) },
);

/** The error a call threw (fails the test when it did not throw one). */
async function thrownBy(call: Promise<unknown>): Promise<RampartApiError> {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RampartApiError);
  return error as RampartApiError;
}

async function waitUntilEnded(client: RampartClient, scanId: string) {
  const deadline = Date.now() + 15_000;
  for (let everyMs = 25; ; everyMs = Math.min(everyMs * 2, 250)) {
    const { scan } = (
      await unwrap(client.GET('/api/v1/scans/{scanId}', { params: { path: { scanId } } }))
    ).data;
    if (['completed', 'failed', 'cancelled'].includes(scan.status)) {
      return scan;
    }
    if (Date.now() > deadline) {
      throw new Error(`scan ${scanId} is still ${scan.status}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

describe('the typed client over HTTP', () => {
  it('creates a key with a token, then scans, reads, lists and reads results with the key', async () => {
    const tenantId = randomUUID();
    const dashboard = createRampartClient({
      baseUrl: ctx.app.url,
      token: await tokenFor(tenantId),
    });
    const created = await unwrap(
      dashboard.POST('/api/v1/api-keys', {
        body: {
          name: 'typed client',
          scopes: ['scans:create', 'scans:read', 'scans:list', 'results:read'],
        },
      }),
    );
    expect(created.data.apiKey.scopes).toContain('results:read');

    // A trailing slash on the base URL is fine.
    const client = createRampartClient({ baseUrl: `${ctx.app.url}/`, apiKey: created.data.rawKey });
    const scan = (
      await unwrap(
        client.POST('/api/v1/scans', {
          body: { target: '127.0.0.1', scanType: 'nmap', options: { ports: '22' }, name: 'typed' },
        }),
      )
    ).data;
    expect(scan).toMatchObject({ target: '127.0.0.1', scanType: 'nmap', name: 'typed' });

    const ended = await waitUntilEnded(client, scan.id);
    expect(ended.status).toBe('completed');

    const list = (await unwrap(client.GET('/api/v1/scans', { params: { query: { limit: 10 } } })))
      .data;
    expect(list.scans.map((listed) => listed.id)).toEqual([scan.id]);
    expect(list.pagination.total).toBe(1);

    const results = await unwrap(
      client.GET('/api/v1/scans/{scanId}/results', { params: { path: { scanId: scan.id } } }),
    );
    // The answer's type covers every format (SARIF, CSV text, DefectDojo); format=json is the envelope.
    if (typeof results === 'string' || !('success' in results)) {
      throw new Error('format=json answers the envelope');
    }
    expect(results.data.findings.map((finding) => finding.title)).toEqual([
      'Open port 22/tcp (ssh)',
    ]);

    // Another format, read as text.
    const csv = await unwrap(
      client.GET('/api/v1/scans/{scanId}/results', {
        params: { path: { scanId: scan.id }, query: { format: 'csv' } },
        parseAs: 'text',
      }),
    );
    expect(csv.split('\n')[1]).toContain('Open port 22/tcp (ssh)');
  });

  it('throws RampartApiError with the code, message and status of the error envelope', async () => {
    const token = await tokenFor(randomUUID());
    const dashboard = createRampartClient({ baseUrl: ctx.app.url, token });
    const { rawKey } = (
      await unwrap(
        dashboard.POST('/api/v1/api-keys', {
          body: { name: 'reader', scopes: ['scans:read'] },
        }),
      )
    ).data;
    const client = createRampartClient({ baseUrl: ctx.app.url, apiKey: rawKey });

    const missing = await thrownBy(
      client.GET('/api/v1/scans/{scanId}', { params: { path: { scanId: randomUUID() } } }),
    );
    expect(missing).toMatchObject({
      name: 'RampartApiError',
      code: 'SCAN_NOT_FOUND',
      message: 'Scan not found',
      status: 404,
      retryAfter: null,
    });
    expect(missing.message).not.toMatch(/\n\s+at /);

    // The key lacks scans:create.
    const refused = await thrownBy(
      client.POST('/api/v1/scans', { body: { target: '127.0.0.1', scanType: 'nmap' } }),
    );
    expect(refused).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403 });

    // A wrong key, and a query the service refuses.
    const wrong = createRampartClient({ baseUrl: ctx.app.url, apiKey: 'rmp_not-a-key' });
    expect(await thrownBy(wrong.GET('/api/v1/scans'))).toMatchObject({
      code: 'INVALID_API_KEY',
      status: 401,
    });
    expect(
      await thrownBy(dashboard.GET('/api/v1/scans', { params: { query: { page: 0 } } })),
    ).toMatchObject({ code: 'INVALID_PAGE', status: 400 });
  });

  it('gives Retry-After as retryAfter, in seconds', async () => {
    await withinOneMinuteWindow();
    const wrong = createRampartClient({ baseUrl: ctx.app.url, apiKey: 'rmp_not-a-key' });
    let limited: RampartApiError | null = null;
    for (let attempt = 0; attempt < 3 && limited === null; attempt += 1) {
      const error = await thrownBy(wrong.GET('/api/v1/scans'));
      limited = error.status === 429 ? error : null;
    }
    expect(limited).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(limited?.retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited?.message).toBe(`Rate limit exceeded. Retry in ${limited?.retryAfter} seconds.`);
  });

  it('refuses bad options when created', () => {
    expect(() => createRampartClient({ baseUrl: 'ftp://example.com', apiKey: 'k' })).toThrow(
      'baseUrl must be an absolute http(s) URL',
    );
    const both = { baseUrl: ctx.app.url, apiKey: 'k', token: 't' } as unknown as Parameters<
      typeof createRampartClient
    >[0];
    expect(() => createRampartClient(both)).toThrow('give apiKey or token, not both');
  });
});

describe('the typed client at compile time', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-client-types-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const entry = fileURLToPath(new URL('../../src/client/index.js', import.meta.url));

  function diagnosticsOf(source: string): string[] {
    const file = join(dir, `check-${randomUUID()}.ts`);
    writeFileSync(file, source);
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      skipLibCheck: true,
    });
    const sourceFile = program.getSourceFile(file);
    return [
      ...program.getSyntacticDiagnostics(sourceFile),
      ...program.getSemanticDiagnostics(sourceFile),
    ].map((diagnostic) => {
      const line =
        diagnostic.start === undefined
          ? -1
          : (diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start).line ?? -1);
      return `${line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
  }

  it('compiles right calls and refuses wrong options, paths and bodies', () => {
    const prelude = `import { createRampartClient, unwrap } from ${JSON.stringify(entry)};\n`;
    expect(
      diagnosticsOf(
        `${prelude}const c = createRampartClient({ baseUrl: 'http://x', apiKey: 'k' });
export const a = unwrap(c.GET('/api/v1/scans/{scanId}', { params: { path: { scanId: 'id' } } }));
export const b = createRampartClient({ baseUrl: 'http://x', token: 't', fetch: globalThis.fetch });
export const n = createRampartClient({ baseUrl: 'http://x' });
`,
      ),
    ).toEqual([]);
    const wrong = [
      "createRampartClient({ baseUrl: 'http://x', apiKey: 42 });",
      "createRampartClient({ baseUrl: 'http://x', apiKey: 'k', token: 't' });",
      "createRampartClient({ apiKey: 'k' });",
      "createRampartClient({ baseUrl: 'http://x', apiKey: 'k' }).GET('/api/v1/scanz');",
      "createRampartClient({ baseUrl: 'http://x', apiKey: 'k' }).POST('/api/v1/scans', { body: { target: 'a', scanType: 'nmap', options: { timing: 'T9' } } });",
    ];
    const diagnostics = diagnosticsOf(`${prelude}${wrong.join('\n')}\n`);
    // At least one error on each wrong line (line 0 is the import), saying what is wrong.
    const onLine = (line: number) =>
      diagnostics.filter((diagnostic) => diagnostic.startsWith(`${line}: `)).join('\n');
    expect(new Set(diagnostics.map((diagnostic) => diagnostic.split(':')[0]))).toEqual(
      new Set(['1', '2', '3', '4', '5']),
    );
    expect(onLine(1)).toContain("Type 'number' is not assignable to type 'string'");
    expect(onLine(2)).toContain("Types of property 'token' are incompatible");
    expect(onLine(3)).toContain("Property 'baseUrl' is missing");
    expect(onLine(4)).not.toBe('');
    expect(onLine(5)).toContain('"T9"');
  }, 60_000);
});
