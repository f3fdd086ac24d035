/**
 * Scaling for the dashboard's hand-made SVG charts: "nice" axis ticks (1, 2, 5 × 10^n steps) that
 * cover the data from zero, and a linear map from values to pixels. Pure, so it is unit-tested
 * without a DOM.
 */

export interface Axis {
  /** The axis's top value: the last tick, at least the data's maximum. */
  readonly max: number;
  /** Tick values from 0 up to max, evenly spaced. */
  readonly ticks: readonly number[];
}

/**
 * Ticks from 0 covering `maxValue`, about `target` intervals, on a 1-2-5 step; counts stay whole
 * numbers (a step below 1 is raised to 1). An empty or all-zero series gets the axis 0..1.
 */
export function countAxis(maxValue: number, target = 4): Axis {
  const top = Number.isFinite(maxValue) && maxValue > 0 ? maxValue : 0;
  if (top === 0) {
    return { max: 1, ticks: [0, 1] };
  }
  const rough = top / Math.max(1, target);
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(
    1,
    [1, 2, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= rough) ??
      10 * magnitude,
  );
  const max = Math.ceil(top / step) * step;
  const ticks: number[] = [];
  for (let value = 0; value <= max; value += step) {
    ticks.push(value);
  }
  return { max, ticks };
}

/** A linear map of [0, domainMax] onto [0, length] pixels, clamped to that range. */
export function linearScale(domainMax: number, length: number): (value: number) => number {
  if (!(domainMax > 0)) {
    return () => 0;
  }
  return (value) => Math.min(length, Math.max(0, (value / domainMax) * length));
}

export interface Bar {
  readonly label: string;
  readonly value: number;
}

/** The entries of a count record as bars, largest first, zeros left out, ties by label. */
export function barsFrom(counts: Readonly<Record<string, number>>): Bar[] {
  return Object.entries(counts)
    .filter(([, value]) => value > 0)
    .map(([label, value]) => ({ label, value }))
    .sort((a, b) => b.value - a.value || a.label.localeCompare(b.label));
}

/** How much of a quota is used, 0..1 (a quota of 0 with nothing used reads 0, with use reads 1). */
export function quotaShare(used: number, limit: number): number {
  if (limit <= 0) {
    return used > 0 ? 1 : 0;
  }
  return Math.min(1, Math.max(0, used / limit));
}
