// The webhook repair scan (docs/webhooks.md "Durability"): re-enqueues webhook attempts whose
// message Redis lost, found from their durable markers (store/webhook-attempt-markers.ts), never a backlog.
import type { Runtime } from "../../runtime";
import { retryTimerId, webhookDispatcherAddress, type WebhookMessage } from "./webhook-dispatcher-mail";
import { getRuntime } from "../../store/runtime-handle";
import { dropDue, dueCandidates, markTimerGone, touchRepaired, type DueCandidate } from "../../store/webhook-attempt-markers";

/** A marker whose message should have run this long ago is looked at (real time, not TIME_SCALE). */
export const REPAIR_GRACE_MS = 60_000;
/** Markers looked at per scan (oldest due first); a full scan asks for the next at once. */
export const REPAIR_LIMIT = 5000;

export interface RepairResult {
  /** markers looked at */
  scanned: number;
  /** attempts re-enqueued: their message was gone */
  requeued: number;
  /** markers of attempts no longer owed (webhook inactive or deleted, event gone, attempt recorded) */
  dropped: number;
  /** markers whose message may still wait in the dispatcher's stream */
  inBacklog: number;
  /** retries whose timer still exists (due, or the dispatcher is not running to fire it) */
  scheduled: number;
  /** retries whose timer was found gone while their partition has a backlog: decided at a later scan */
  timerGone: number;
}

function messageOf(c: DueCandidate): WebhookMessage {
  return c.delivery_id
    ? { v: 1, type: "manual", webhookId: c.webhook_id, eventId: c.event_id, deliveryId: c.delivery_id }
    : { v: 1, type: "attempt", webhookId: c.webhook_id, eventId: c.event_id, attempt: c.attempt };
}

/** Which of these automatic retries still have their runtime timer (the dispatcher schedules it in the key's partition). */
async function timersPresent(runtime: Runtime, retries: DueCandidate[]): Promise<boolean[]> {
  if (!retries.length) return [];
  const pipeline = runtime.redis.pipeline();
  for (const c of retries) {
    const p = runtime.partitionFor(webhookDispatcherAddress, messageOf(c));
    pipeline.zscore(runtime.keys.timers(webhookDispatcherAddress.name, p), retryTimerId(c.webhook_id, c.event_id));
  }
  const results = (await pipeline.exec()) ?? [];
  return results.map(([err, score]) => {
    if (err) throw err;
    return score !== null;
  });
}

/**
 * One scan. A marker overdue by graceMs is dropped when the dispatcher would make no attempt (it is
 * idempotent: such a message would be refused), left alone while its message may still be waiting
 * (a retry whose timer exists; a message sent before the oldest unfinished entry of its partition,
 * `unfinishedSince`, as the reconciler does), and otherwise re-enqueued, marked first so the next
 * scan waits graceMs x 2^repairs before trying it again. A re-enqueued message that was not lost
 * after all is a duplicate message, never a duplicate delivery: attempts of one event run one at a
 * time (key webhook:event) and each attempt is recorded once.
 */
export async function repairWebhookWork(
  opts: { graceMs?: number; limit?: number; runtime?: Runtime; /** tests scope a scan to their own tenant */ tenantId?: string } = {},
): Promise<RepairResult> {
  const runtime = opts.runtime ?? getRuntime();
  const graceMs = opts.graceMs ?? REPAIR_GRACE_MS;
  const rows = await dueCandidates({ graceMs, limit: opts.limit ?? REPAIR_LIMIT, tenantId: opts.tenantId });
  const result: RepairResult = { scanned: rows.length, requeued: 0, dropped: 0, inBacklog: 0, scheduled: 0, timerGone: 0 };
  if (!rows.length) return result;

  result.dropped = await dropDue(rows.filter((r) => !r.owed));
  const owed = rows.filter((r) => r.owed);
  const retries = owed.filter((r) => !r.delivery_id && r.attempt > 1);
  const present = await timersPresent(runtime, retries);
  const scheduled = new Set(retries.filter((_, i) => present[i]));
  // asked after the markers and the timers were read: whatever was sent before them and is not unfinished now was handled
  const unscheduled = owed.filter((r) => !scheduled.has(r));
  result.scheduled = owed.length - unscheduled.length;
  const queued = await runtime.stillQueued(webhookDispatcherAddress, unscheduled.map((r) => ({ msg: messageOf(r), sentAtMs: r.enqueued_ms })));

  const lost: DueCandidate[] = [];
  const timerGone: DueCandidate[] = [];
  unscheduled.forEach((r, i) => {
    if (!queued[i]) lost.push(r);
    // A retry whose timer is gone (no send time): fired, its message entered the stream before now,
    // or lost; with a backlog in its partition the next scan decides, knowing that (markTimerGone).
    else if (r.enqueued_ms === null) timerGone.push(r);
    else result.inBacklog++;
  });
  await markTimerGone(timerGone);
  result.timerGone = timerGone.length;
  const touched = await touchRepaired(lost, graceMs);
  if (touched.length) {
    const byKey = new Map(lost.map((r) => [`${r.webhook_id}:${r.event_id}:${r.attempt}`, r]));
    const send = touched.map((k) => messageOf(byKey.get(`${k.webhook_id}:${k.event_id}:${k.attempt}`)!));
    await runtime.sendMany(webhookDispatcherAddress, send);
  }
  result.requeued = touched.length;
  return result;
}
