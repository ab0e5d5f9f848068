// Retry back-off as data plus one pure function (STYLE.md 5). The host multiplies the result
// by TIME_SCALE; deliveries counts handler runs so far, including the one that just failed.

export interface RetryPolicy {
  baseMs: number;
  factor: number;
  maxMs: number;
  /** Fraction of the delay randomised (0.2 = ±20%) so retries of many keys do not align. */
  jitter: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 200, factor: 2, maxMs: 30_000, jitter: 0.2 };

export function retryDelayFor(deliveries: number, policy: RetryPolicy = DEFAULT_RETRY_POLICY, random: () => number = Math.random): number {
  const exponent = Math.max(0, deliveries - 1);
  const raw = Math.min(policy.maxMs, policy.baseMs * Math.pow(policy.factor, exponent));
  const spread = raw * policy.jitter * (random() * 2 - 1);
  return Math.max(0, Math.round(Math.min(policy.maxMs, raw + spread)));
}
