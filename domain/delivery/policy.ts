// The numbers of delivery attempts, read by the sender, lost-attempt recovery and the reconciler: how
// many, the back-off between them, the provider deadline, when a claim counts as lost; timer names.
import { config } from "../../config";
import type { RetryPolicy } from "../../runtime";

export const MAX_ATTEMPTS = 5;

/**
 * Back-off before attempt n+1 after a retryable failure of attempt n, for the runtime's
 * retryDelayFor(n, DELIVERY_RETRY_POLICY): 30 s doubling (30, 60, 120, 240 s before attempts 2-5),
 * no jitter, capped at the last of those; multiplied by TIME_SCALE when scheduled.
 */
export const DELIVERY_RETRY_POLICY: RetryPolicy = { baseMs: 30_000, factor: 2, maxMs: 30_000 * 2 ** (MAX_ATTEMPTS - 2), jitter: 0 };

/** Outer bound of one provider call (adapters enforce their own, shorter deadline); SENDER_PROVIDER_DEADLINE_MS, default 15 s. */
export const PROVIDER_DEADLINE_MS = config.senderProviderDeadlineMs;

/**
 * A claimed attempt without an outcome whose claim is older than this lost its handler (the process
 * died or the outcome write failed): the provider deadline plus a margin for the claim-to-call and
 * call-to-outcome work (15 s by default; never below the handler's 5 s beyond the provider deadline).
 * Younger claims belong to a handler that may still be calling the provider.
 */
export const STALE_CLAIM_MS = PROVIDER_DEADLINE_MS + Math.min(15_000, Math.max(5_000, PROVIDER_DEADLINE_MS));

export const OUTCOME_UNKNOWN = { code: "outcome_unknown", message: "the sender stopped during this attempt; the provider may have accepted it" };

/**
 * Timer names of the channel sender. One retry timer per notification: whoever schedules the next
 * attempt (the sender, lost-attempt recovery, the reconciler) replaces the same timer.
 */
export const senderTimers = {
  retry: (notificationId: string) => `retry:${notificationId}`,
  /** a redelivered message looks again when the claim it found can be called lost */
  staleClaim: (notificationId: string, attempt: number) => `claim:${notificationId}:${attempt}`,
  /** the same attempt, after the provider's rate limit */
  rateLimited: (notificationId: string, attempt: number) => `rl:${notificationId}:${attempt}`,
  /** the same attempt, once a provider entry's circuit may half-open (every entry's was open: domain/routing/) */
  circuitsOpen: (notificationId: string, attempt: number) => `circuits:${notificationId}:${attempt}`,
};
