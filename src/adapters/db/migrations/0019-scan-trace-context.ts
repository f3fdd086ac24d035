import type { Migration } from './index.js';

/**
 * Traces (issue 25): the W3C `traceparent` of the request that created a scan (a sentinel child:
 * its parent's), so the worker's `scan.run` span continues that trace. Null when tracing is off
 * and for scheduled scans.
 */
export const migration0019: Migration = {
  version: 19,
  name: 'scan-trace-context',
  statements: [`alter table scans add column trace_context text`],
};
