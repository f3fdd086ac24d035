import { TraceFlags } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { createScanTracing, formatTraceparent, parseTraceparent } from './scan-tracing.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('the traceparent stored on a scan', () => {
  it('round-trips a sampled and an unsampled span context', () => {
    for (const traceFlags of [TraceFlags.SAMPLED, TraceFlags.NONE]) {
      const value = formatTraceparent({ traceId: TRACE, spanId: SPAN, traceFlags });
      expect(value).toBe(`00-${TRACE}-${SPAN}-0${traceFlags}`);
      expect(parseTraceparent(value)).toEqual({
        traceId: TRACE,
        spanId: SPAN,
        traceFlags,
        isRemote: true,
      });
    }
  });

  it('reads nothing else: other versions, bad lengths, upper case, the all-zero ids', () => {
    for (const value of [
      '',
      `01-${TRACE}-${SPAN}-01`,
      `00-${TRACE.slice(1)}-${SPAN}-01`,
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `00-${'0'.repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
    ]) {
      expect(parseTraceparent(value), value).toBeNull();
    }
  });

  it('without a registered SDK, nothing is traced and the work still runs', async () => {
    const tracing = createScanTracing();
    expect(tracing.currentTraceContext()).toBeNull();
    const result = await tracing.runScan(
      `00-${TRACE}-${SPAN}-01`,
      { scanId: 'id', engine: 'nmap', priority: 'normal' },
      async () => 42,
    );
    expect(result).toBe(42);
    await expect(
      tracing.runScan(null, { scanId: 'id', engine: 'nmap', priority: 'normal' }, async () => {
        throw new Error('engine broke');
      }),
    ).rejects.toThrow('engine broke');
  });
});
