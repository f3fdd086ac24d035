/**
 * OpenTelemetry for one process: the Node SDK (traces only; the exporter, sampler, headers and
 * propagators come from the standard OTEL_* environment, which the SDK reads itself), the HTTP
 * spans of @fastify/otel, and the scans' ScanTracing. Loaded with import() only when tracing is
 * on, so a process without OTEL_EXPORTER_OTLP_ENDPOINT never loads the SDK.
 */
import type { FastifyPluginCallback } from 'fastify';
import { NO_TRACING, type ScanTracing } from '../../use-cases/ports/tracing.js';

/** The SDK's span processor type, named without importing the SDK at run time. */
export type SpanProcessor = NonNullable<
  import('@opentelemetry/sdk-node').NodeSDKConfiguration['spanProcessors']
>[number];

export interface ProcessTracing {
  readonly scans: ScanTracing;
  /** @fastify/otel's plugin, registered before the routes; null when tracing is off. */
  readonly httpPlugin: FastifyPluginCallback | null;
  /** Flushes the spans not yet exported and stops the SDK. */
  shutdown(): Promise<void>;
}

/** Tracing off: the API's no-op tracer, no plugin, nothing to flush. */
export const TRACING_OFF: ProcessTracing = {
  scans: NO_TRACING,
  httpPlugin: null,
  shutdown: async () => undefined,
};

/** Paths that get no request span: probes and scrapes, not work. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface TracingOptions {
  /** service.name of the spans (OTEL_SERVICE_NAME, else `rampart-api` or `rampart-worker`). */
  readonly serviceName: string;
  /** Replaces the exporter the environment configures (tests: an in-memory exporter). */
  readonly spanProcessors?: readonly SpanProcessor[];
}

export async function startTracing(options: TracingOptions): Promise<ProcessTracing> {
  const [{ NodeSDK }, { FastifyOtelInstrumentation }, { createScanTracing }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@fastify/otel'),
    import('./scan-tracing.js'),
  ]);
  const http = new FastifyOtelInstrumentation({
    ignorePaths: ({ url }) => UNTRACED_PATHS.has(url.split('?')[0] ?? url),
  });
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    instrumentations: [http],
    // Traces only: metrics are Prometheus's (/metrics), logs are pino's.
    metricReaders: [],
    logRecordProcessors: [],
    ...(options.spanProcessors ? { spanProcessors: [...options.spanProcessors] } : {}),
  });
  sdk.start();
  return {
    scans: createScanTracing(),
    httpPlugin: http.plugin(),
    shutdown: () => sdk.shutdown(),
  };
}
