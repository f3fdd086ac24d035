/**
 * ScanTracing on the OpenTelemetry API: the context is written as a W3C `traceparent` whatever
 * propagators are configured (the row holds one format), and `scan.run` spans are started with
 * the stored one as parent.
 */
import {
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  type SpanContext,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { ScanTracing } from '../../use-cases/ports/tracing.js';

const TRACER_NAME = 'rampart';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** `00-<trace id>-<span id>-<flags>` of a valid span context. */
export function formatTraceparent(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The remote span context a stored `traceparent` names; null when it is not one. */
export function parseTraceparent(value: string): SpanContext | null {
  const match = TRACEPARENT.exec(value);
  if (match === null) {
    return null;
  }
  const [, traceId = '', spanId = '', flags = '00'] = match;
  const span: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
  };
  return isSpanContextValid(span) ? span : null;
}

export function createScanTracing(): ScanTracing {
  const tracer = trace.getTracer(TRACER_NAME);
  return {
    currentTraceContext() {
      const span = trace.getSpan(context.active())?.spanContext();
      return span !== undefined && isSpanContextValid(span) ? formatTraceparent(span) : null;
    },

    async runScan(traceContext, scan, work) {
      const stored = traceContext === null ? null : parseTraceparent(traceContext);
      const parent = stored === null ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, stored);
      return tracer.startActiveSpan(
        'scan.run',
        {
          attributes: {
            'rampart.scan.id': scan.scanId,
            'rampart.scan.engine': scan.engine,
            'rampart.scan.priority': scan.priority,
          },
        },
        parent,
        async (span) => {
          try {
            return await work();
          } catch (error) {
            span.setStatus({ code: SpanStatusCode.ERROR });
            throw error;
          } finally {
            span.end();
          }
        },
      );
    },
  };
}
