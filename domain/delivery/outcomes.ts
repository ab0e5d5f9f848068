// A delivery attempt's outcome, written once: its attempt row, the guarded status move, its
// notification.* events, rollup counts and suppression entry, in one transaction per batch of handlers.
import { config } from "../../config";
import { applyCounters, type CounterDelta } from "../../store/analytics";
import { inIdOrder, writeAttemptsAndMoves, type Outcome } from "../../store/attempts";
import { inPipelinedTx, type Tx } from "../../store/db";
import { recordNotificationStatus } from "../../basics/metrics";
import { MicroBatcher } from "../../store/micro-batcher";
import { eventNotification } from "../events/notification-object";
import { prepareEvents, type NewEvent } from "../events/outbox";
import { wakeWorkflowRuns } from "../workflows/wakeups";
import { suppressUnregistered } from "./suppression";

export type { Outcome };

/** The events and rollup counts of one status move (a status move and its event are never separated). */
function consequencesOf(o: Outcome, now: Date, events: NewEvent[], deltas: CounterDelta[]): void {
  const base = { tenantId: o.n.tenant_id, environment: o.n.environment, createdAt: o.n.created_at, channel: o.n.channel, template: o.n.template_slug };
  const emit = (type: string, data: Record<string, unknown>) => events.push({ tenantId: o.n.tenant_id, environment: o.n.environment, type, data });
  const notification = eventNotification({ ...o.n, status: o.status });
  const at = now.toISOString();
  if (o.status === "sent" || o.status === "delivered" || o.status === "bounced") {
    deltas.push({ ...base, counter: "sent" });
    emit("notification.sent", { notification: { ...notification, status: "sent" }, provider: o.provider });
  }
  if (o.status === "delivered") {
    deltas.push({ ...base, counter: "delivered" });
    emit("notification.delivered", {
      notification,
      delivered_at: at,
      delivery: { delivered_at: at, provider: o.provider, message_id: o.providerMessageId ?? null },
    });
  } else if (o.status === "bounced") {
    deltas.push({ ...base, counter: "bounced" });
    emit("notification.bounced", { notification, bounce_reason: o.error?.message ?? "bounced" });
  } else if (o.status === "failed" || (o.status === "pending" && o.willRetry)) {
    if (o.status === "failed") deltas.push({ ...base, counter: "failed" });
    emit("notification.failed", {
      notification,
      error: { code: o.error?.code ?? "failed", message: o.error?.message ?? "", provider: o.provider, attempt: o.attempt, will_retry: o.status === "pending" },
    });
  } else if (o.status === "suppressed") {
    deltas.push({ ...base, counter: "suppressed" });
  }
}

/**
 * Writes outcomes in `tx`; value: per outcome (in the caller's order) whether its notification
 * moved (false: it had already moved). Events and counts are not awaited: they are the tail,
 * pipelined with the COMMIT (store/db.ts inPipelinedTx), or awaited by a caller with its own transaction.
 */
export async function writeOutcomes(tx: Tx, unsorted: Outcome[]): Promise<{ value: boolean[]; tail: Promise<unknown>[] }> {
  const now = new Date();
  // in id order, like the claim: every writer touches notification rows in that one order
  const outs = inIdOrder(unsorted, (o) => o.n.id);
  const movedIds = await writeAttemptsAndMoves(tx, outs, now);
  const deltas: CounterDelta[] = [];
  const events: NewEvent[] = [];
  for (const o of outs) if (movedIds.has(o.n.id)) consequencesOf(o, now, events, deltas);
  const tail: Promise<unknown>[] = [];
  // notification.* events are stored where a webhook can read them (domain/events/outbox.ts)
  if (events.length) tail.push(prepareEvents(tx, events, { onlyIfListened: true }).insert.execute());
  if (deltas.length) tail.push(applyCounters(tx, deltas));
  // with the status, never after it: a client that sees `failed` also sees the address listed
  for (const o of outs) if (o.recipientUnregistered && movedIds.has(o.n.id)) tail.push(suppressUnregistered(tx, o.n));
  return { value: unsorted.map((o) => movedIds.has(o.n.id)), tail };
}

// One transaction per batch; a failed batch is retried outcome by outcome, so one bad row fails only its own handler.
const outcomeBatcher = new MicroBatcher<Outcome, boolean>(
  async (outs) => {
    const moved = await inPipelinedTx((tx) => writeOutcomes(tx, outs));
    outs.forEach((o, k) => moved[k] === true && recordNotificationStatus(o.n.channel, o.status));
    // after commit: the workflow runs waiting on notifications that moved look at their new status
    void wakeWorkflowRuns(outs.map((o, k) => ({ notificationId: o.n.id, workflowRunId: moved[k] === true ? o.n.workflow_run_id : null, status: o.status })));
    return moved;
  },
  { maxSize: 500, maxWaitMs: 2, busyWaitMs: () => config.outcomeBatchBusyWaitMs, maxConcurrent: 3, retryEachAlone: true, name: "delivery outcomes" },
);

/** Records an outcome; resolves true when the notification moved (false: it had already moved). */
export function recordOutcome(o: Outcome): Promise<boolean> {
  return outcomeBatcher.submit(o);
}
