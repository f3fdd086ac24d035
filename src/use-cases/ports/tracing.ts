/**
 * Traces of a scan, as use cases and workers see them: the trace context of the request that
 * creates a scan is stored on its row, and the worker's run of the scan continues that trace.
 * adapters/tracing/ implements it with OpenTelemetry, so nothing else imports an OTel package.
 */

/** What the `scan.run` span says about the scan: never a target's credentials or a secret. */
export interface ScanRunAttributes {
  readonly scanId: string;
  readonly engine: string;
  readonly priority: string;
}

export interface ScanTracing {
  /** The active span's context as a W3C `traceparent`; null when nothing is being traced. */
  currentTraceContext(): string | null;
  /**
   * Runs `work` inside a `scan.run` span whose parent is `traceContext` (a stored `traceparent`;
   * null or unreadable: a new trace).
   */
  runScan<T>(
    traceContext: string | null,
    scan: ScanRunAttributes,
    work: () => Promise<T>,
  ): Promise<T>;
}

/** Traces nothing: tracing is off (no OTEL_EXPORTER_OTLP_ENDPOINT), unit tests, tools. */
export const NO_TRACING: ScanTracing = {
  currentTraceContext: () => null,
  runScan: (_traceContext, _scan, work) => work(),
};
