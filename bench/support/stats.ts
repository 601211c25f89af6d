/** The figures every bench prints: percentiles with their tails, rounded for reading. */

export const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;

/** The value at `fraction` (0.5 = median) of the sorted samples. */
export function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

/** Median, p95, p99 and max of samples in ms, with how many there were. */
export function tails(values: readonly number[], digits = 1): Record<string, number> {
  return {
    samples: values.length,
    medianMs: round(percentile(values, 0.5), digits),
    p95Ms: round(percentile(values, 0.95), digits),
    p99Ms: round(percentile(values, 0.99), digits),
    // Not Math.max(...values): a spread of a few hundred thousand samples overflows the stack.
    maxMs: round(
      values.reduce((max, value) => Math.max(max, value), Number.NEGATIVE_INFINITY),
      digits,
    ),
  };
}
