// Lost-attempt recovery, the one place for it (the sender and the reconciler call it): a stale claim
// of attempt n with no attempt row n lost its handler, perhaps after the provider accepted the message.
import { config } from "../../config";
import { hostProvablyDead, retryDelayFor, type ActorContext } from "../../runtime";
import { senderMessage, type SendMessage } from "./channel-sender-mail";
import { claimStateOf, insertUnknownAttempt, lockStaleClaim } from "../../store/attempts";
import { sql } from "../../store/db";
import { writeOutcomes } from "./outcomes";
import { DELIVERY_RETRY_POLICY, MAX_ATTEMPTS, OUTCOME_UNKNOWN, senderTimers, STALE_CLAIM_MS } from "./policy";

type Ref = { id: string; tenantId: string; environment: string };
/** What the sender's handler needs of its actor context (tests pass a recording fake). */
export type SendContext = Pick<ActorContext, "schedule"> & Partial<Pick<ActorContext, "deliveries" | "hostId">>;

/**
 * Records attempt n as a `failure` with OUTCOME_UNKNOWN when its claim is stale, and moves the
 * notification as a retryable failure of attempt n would (pending with the next attempt due, or
 * failed after the last). Exactly once across processes: the attempt row's unique key decides, and
 * only the writer that inserted it moves the status. Returns the next attempt to schedule (delay
 * counted from the lost attempt's claim, since its back-off already ran while nobody knew), null
 * when nothing was recorded here or nothing follows.
 */
export async function recordLostAttempt(ref: Ref, attempt: number, staleMs = STALE_CLAIM_MS): Promise<{ recorded: boolean; next: { msg: SendMessage; delayMs: number } | null }> {
  const done = await sql.begin(async (tx) => {
    const n = await lockStaleClaim(tx, ref, attempt, staleMs);
    if (!n) return null;
    if (!(await insertUnknownAttempt(tx, n, attempt, OUTCOME_UNKNOWN))) return null; // another process recorded it
    const willRetry = attempt < MAX_ATTEMPTS;
    const dueAt = new Date(Math.max(Date.now(), n.claimed.getTime() + retryDelayFor(attempt, DELIVERY_RETRY_POLICY) * config.timeScale));
    const { claimed: _claimed, ...row } = n;
    const out = await writeOutcomes(tx, [
      { n: row, attempt, provider: n.provider, status: willRetry ? "pending" : "failed", error: OUTCOME_UNKNOWN, willRetry, nextAttemptAt: willRetry ? dueAt : null },
    ]);
    await Promise.all(out.tail);
    return { willRetry, dueAt, n };
  });
  if (!done) return { recorded: false, next: null };
  if (!done.willRetry) return { recorded: true, next: null };
  const msg = senderMessage({ id: done.n.id, tenantId: done.n.tenant_id, environment: done.n.environment, channel: done.n.channel, priority: done.n.priority }, attempt + 1);
  return { recorded: true, next: { msg, delayMs: Math.max(0, done.dueAt.getTime() - Date.now()) } };
}

/** A message whose claim failed: the notification finished, moved on, or attempt n is claimed and maybe lost. */
export async function onClaimTaken(msg: SendMessage, ctx: SendContext): Promise<void> {
  const ref = { id: msg.notificationId, tenantId: msg.tenantId, environment: msg.environment };
  const s = await claimStateOf(ref, STALE_CLAIM_MS);
  if (!s || s.status !== "pending" || s.attempt_count !== msg.attempt) return;
  if (s.has_outcome) {
    // Attempt n is recorded and the next one is due: a redelivered message's handler may have died
    // between that commit and scheduling the retry (kill -9), which nothing else would notice before
    // the reconciler's 60 s scan. It is scheduled again under the same timer id (a retry already
    // scheduled is replaced by the same one; one that already ran moved attempt_count on).
    if ((ctx.deliveries ?? 1) > 1 && s.next_attempt_at) {
      const next: SendMessage = { ...msg, attempt: msg.attempt + 1, entry: undefined };
      await ctx.schedule(senderTimers.retry(msg.notificationId), Math.max(0, s.next_attempt_at.getTime() - Date.now()), next, { unscaled: true });
    }
    return;
  }
  // The claimer is a process of this machine that is gone (kill -9 mid-call): nobody can still be
  // calling the provider for this attempt, so it is recorded as lost now, not after the claim goes stale
  const claimerDead = !!s.claimed_by && hostProvablyDead(s.claimed_by);
  if (s.stale_in_ms > 0 && !claimerDead) {
    // Another handler may be calling the provider right now: leave it. A redelivered message (its
    // handler's process died, or the handler threw) looks again once the claim can be called lost,
    // instead of leaving the attempt to the reconciler's 60 s scan.
    if ((ctx.deliveries ?? 1) > 1) {
      await ctx.schedule(senderTimers.staleClaim(msg.notificationId, msg.attempt), s.stale_in_ms + 250, msg, { unscaled: true });
    }
    return;
  }
  const { next } = await recordLostAttempt(ref, msg.attempt, claimerDead ? 0 : STALE_CLAIM_MS);
  if (next) await ctx.schedule(senderTimers.retry(msg.notificationId), next.delayMs, next.msg, { unscaled: true });
}
