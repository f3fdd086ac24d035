/**
 * Traces (issue 25): the app runs with the OpenTelemetry SDK as production starts it
 * (adapters/tracing/start-tracing.ts), its spans going to an in-memory exporter instead of OTLP.
 * A scan created over real HTTP runs in the app's own worker on the instant test engine
 * (test/doubles); the POST's request span and the worker's `scan.run` span are one trace, and a
 * sentinel scan's children join it. With tracing off, nothing is stored on the scan row.
 */
import { randomUUID } from 'node:crypto';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProcessTracing, startTracing } from '../../src/adapters/tracing/start-tracing.js';
import { instantEngine } from '../doubles/engines.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import {
  createKey,
  SCAN_ADDRESS,
  startApp,
  type TestApp,
  tokenFor,
  useTestApp,
} from '../support/harness.js';
import { createScan, waitForStatus } from '../support/scans.js';
import { until } from '../support/until.js';

const ENV = {
  WORKERS: '1',
  WORKER_CONCURRENCY: '4',
  ALLOW_PRIVATE_TARGETS: 'true',
  WORKER_SHUTDOWN_GRACE_MS: '100',
};
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/;

async function keyFor(app: TestApp): Promise<string> {
  return (await createKey(app, await tokenFor(randomUUID()), { rateLimitPerMinute: 1000 })).rawKey;
}

async function storedTraceContext(database: TestDatabase, scanId: string) {
  const { rows } = await sql<{ trace_context: string | null }>`
    select trace_context from scans where id = ${scanId}`.execute(database.handle.db);
  return rows[0]?.trace_context;
}

describe('traces on', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: ProcessTracing;
  let database: TestDatabase;
  let app: TestApp;
  let key = '';

  beforeAll(async () => {
    tracing = await startTracing({
      serviceName: 'rampart-test',
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    database = await createTestDatabase();
    app = await startApp(database.handle, ENV, {
      engineRunners: new Map([['nmap', instantEngine()]]),
      tracing,
    });
    key = await keyFor(app);
  });

  afterAll(async () => {
    await app?.close();
    await database?.destroy();
    await tracing?.shutdown();
  });

  const spans = () => exporter.getFinishedSpans();
  const runsOf = (scanId: string) =>
    spans().filter(
      (span) => span.name === 'scan.run' && span.attributes['rampart.scan.id'] === scanId,
    );
  /** The request span of the POST that created a scan (the one whose trace `traceId` is). */
  const postSpan = (traceId: string) =>
    spans().find(
      (span) =>
        span.name === 'request' &&
        span.spanContext().traceId === traceId &&
        span.attributes['http.request.method'] === 'POST' &&
        span.attributes['http.route'] === '/api/v1/scans',
    );

  /** The span ids from `span` up to its trace's root, by each span's parent. */
  function parentChain(span: ReadableSpan): string[] {
    const byId = new Map(spans().map((each) => [each.spanContext().spanId, each]));
    const chain: string[] = [];
    let parentId = span.parentSpanContext?.spanId;
    while (parentId !== undefined && !chain.includes(parentId)) {
      chain.push(parentId);
      parentId = byId.get(parentId)?.parentSpanContext?.spanId;
    }
    return chain;
  }

  it('one trace goes from POST /api/v1/scans to the worker run of the scan', async () => {
    const created = await createScan(app, key, {
      scanType: 'nmap',
      target: SCAN_ADDRESS,
      priority: 'high',
    });
    await waitForStatus(app, key, created.id, ['completed']);
    const [run] = await until(
      async () => runsOf(created.id),
      (found) => found.length === 1,
      10_000,
      20,
    );
    expect(run).toBeDefined();
    if (run === undefined) {
      return;
    }
    const traceId = run.spanContext().traceId;
    const post = await until(
      async () => postSpan(traceId),
      (found) => found !== undefined,
      10_000,
      20,
    );
    expect(post?.spanContext().traceId).toBe(traceId);
    expect(parentChain(run)).toContain(post?.spanContext().spanId);
    // The request's span started the trace: nothing above it.
    expect(post?.parentSpanContext).toBeUndefined();
    expect(run.attributes).toEqual({
      'rampart.scan.id': created.id,
      'rampart.scan.engine': 'nmap',
      'rampart.scan.priority': 'high',
    });
    expect(run.resource.attributes['service.name']).toBe('rampart-test');
    // The row keeps the traceparent of a span of that trace; the scan's view does not show it.
    const stored = await storedTraceContext(database, created.id);
    expect(stored).toMatch(TRACEPARENT);
    expect(stored?.split('-')[1]).toBe(traceId);
    const detail = await app.request(`/api/v1/scans/${created.id}`, {
      headers: { 'x-api-key': key },
    });
    expect(detail.text).not.toContain(traceId);
  });

  it('leaves probes and scrapes out: /healthz, /readyz and /metrics get no span', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect((await app.request(path)).status).toBe(200);
    }
    // A traced request after them: once its span is exported, theirs would have been too.
    expect((await app.request('/api/v1/engines', { headers: { 'x-api-key': key } })).status).toBe(
      200,
    );
    await until(
      async () => spans().filter((span) => span.attributes['url.path'] === '/api/v1/engines'),
      (found) => found.length > 0,
      10_000,
      20,
    );
    const paths = spans().map((span) => span.attributes['url.path']);
    expect(paths).not.toContain('/healthz');
    expect(paths).not.toContain('/readyz');
    expect(paths).not.toContain('/metrics');
  });

  it("continues the caller's trace when the POST carries a traceparent", async () => {
    const callerTrace = randomUUID().replaceAll('-', '');
    const response = await app.request('/api/v1/scans', {
      method: 'POST',
      headers: { 'x-api-key': key, traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` },
      json: { scanType: 'nmap', target: SCAN_ADDRESS },
    });
    expect(response.status, response.text).toBe(201);
    const id: string = response.body.data.id;
    await waitForStatus(app, key, id, ['completed']);
    const runs = await until(
      async () => runsOf(id),
      (found) => found.length === 1,
      10_000,
      20,
    );
    expect(runs[0]?.spanContext().traceId).toBe(callerTrace);
  });

  it("runs a sentinel scan's children in the trace of the request that created it", async () => {
    const parent = await createScan(app, key, {
      scanType: 'sentinel',
      target: SCAN_ADDRESS,
      options: { engines: ['nmap'] },
    });
    await waitForStatus(app, key, parent.id, ['completed']);
    const { rows } = await sql<{ id: string; trace_context: string | null }>`
      select id, trace_context from scans where parent_scan_id = ${parent.id}`.execute(
      database.handle.db,
    );
    expect(rows.length).toBeGreaterThan(0);
    const parentContext = await storedTraceContext(database, parent.id);
    expect(parentContext).toMatch(TRACEPARENT);
    const traceId = parentContext?.split('-')[1];
    for (const child of rows) {
      expect(child.trace_context).toBe(parentContext);
      const runs = await until(
        async () => runsOf(child.id),
        (found) => found.length === 1,
        10_000,
        20,
      );
      expect(runs[0]?.spanContext().traceId).toBe(traceId);
    }
    expect(postSpan(traceId ?? '')).toBeDefined();
  });
});

describe('traces off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  const ctx = useTestApp(ENV, { engineRunners: new Map([['nmap', instantEngine()]]) });

  it('stores no trace context and still runs the scan', async () => {
    const key = await keyFor(ctx.app);
    const created = await createScan(ctx.app, key, { scanType: 'nmap', target: SCAN_ADDRESS });
    await waitForStatus(ctx.app, key, created.id, ['completed']);
    expect(await storedTraceContext(ctx.database, created.id)).toBeNull();
  });
});
