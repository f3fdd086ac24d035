/** Latency figures of the benches. */

/** The value below which a fraction `q` of `values` lies (nearest rank; 0 for none). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

export interface LatencyFigures {
  /** Milliseconds, to two decimals. */
  readonly p50: number;
  readonly p99: number;
  /** How many were measured. */
  readonly scans: number;
}

/** p50 and p99 of `latencies` (ms), to two decimals. */
export function latencyFigures(latencies: readonly number[]): LatencyFigures {
  return {
    p50: Number(quantile(latencies, 0.5).toFixed(2)),
    p99: Number(quantile(latencies, 0.99).toFixed(2)),
    scans: latencies.length,
  };
}
