/**
 * Whether this process traces: with OTEL_EXPORTER_OTLP_ENDPOINT set, the OpenTelemetry SDK is
 * started (adapters/tracing/start-tracing.ts); without it nothing is loaded and every span is the
 * API's no-op.
 */
import {
  type ProcessTracing,
  startTracing,
  TRACING_OFF,
} from '../adapters/tracing/start-tracing.js';
import type { Config } from '../config/load-config.js';

/** The service.name of each kind of process when OTEL_SERVICE_NAME is unset. */
export type ProcessRole = 'rampart-api' | 'rampart-worker';

export function processTracing(config: Config, role: ProcessRole): Promise<ProcessTracing> {
  return config.tracing.enabled
    ? startTracing({ serviceName: config.tracing.serviceName ?? role })
    : Promise.resolve(TRACING_OFF);
}
