/**
 * The summary figures every benchmark prints, taken one way everywhere so that tables compare: the
 * nearest-rank percentile without interpolation.
 */

/** The p-th percentile (0 to 100): the value at floor(p% of n) of the sorted values, the last one at most; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** The 50th percentile: the upper middle value of an even count. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}
