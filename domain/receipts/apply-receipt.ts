// The one status move for every inbound report about a sent notification (Twilio, SendGrid and WhatsApp
// callbacks, our open/click tracking): DESIGN.md 6's moves, never backwards, each event emitted once.
import { recordNotificationStatus } from "../../basics/metrics";
import type { ProviderReceipt } from "../../providers/types";
import { logger } from "../../basics/log";
import { applyCounters, type Counter, type CounterDelta } from "../../store/analytics";
import { sql } from "../../store/db";
import { insertEngagement, type NewEngagement } from "../../store/engagements";
import {
  applyReceiptUpdate,
  lockByProviderMessageId,
  lockNotification,
  type NotificationRow,
  type ReceiptUpdate,
} from "../../store/notifications";
import { eventNotification } from "../events/notification-object";
import { addSuppression, type SuppressionListReason } from "../../store/suppressions";
import { emitEvents } from "../events/outbox";
import { ERASED_RECIPIENT, suppressionAddress } from "../delivery/suppression";
import { wakeWorkflowRuns } from "../workflows/wakeups";

/**
 * A signed callback whose timestamp is further than this from now is refused (SendGrid signs its
 * timestamp): a replay, or a clock too wrong to trust. Twilio and WhatsApp sign no timestamp; a
 * replay of theirs changes nothing because every move below is idempotent (docs/delivery-receipts.md).
 */
export const CALLBACK_MAX_AGE_MS = 5 * 60_000;

/** A receipt as the status move takes it: a provider's (without its message id) or our tracking's. */
export type ReceiptInput = Omit<ProviderReceipt, "messageId"> & {
  /** "twilio", "sendgrid", "whatsapp_cloud" or "tracking" (our pixel and links) */
  source: string;
  /** clicked through our tracking: which link of the message */
  linkIndex?: number | null;
};

/** Which notification a receipt is about: a provider message id within one configuration's scope, or our own id. */
export type ReceiptTarget =
  | { kind: "message"; tenantId: string; environment: string; channel: string; messageId: string }
  | { kind: "notification"; notificationId: string };

type EventOut = { type: string; data: Record<string, unknown> };

/** What one receipt changes on one notification; empty when it changes nothing. */
export interface ReceiptPlan {
  /** the status it moves to (null: it stays) */
  moved: "sent" | "delivered" | "failed" | "bounced" | null;
  update: ReceiptUpdate | null;
  events: EventOut[];
  counters: Counter[];
  engagement: Omit<NewEngagement, "tenantId" | "environment" | "notificationId"> | null;
  suppress: SuppressionListReason | null;
}

type PlanRow = Pick<
  NotificationRow,
  | "id"
  | "status"
  | "channel"
  | "recipient"
  | "template_slug"
  | "content"
  | "provider"
  | "provider_message_id"
  | "attempt_count"
  | "opened_at"
  | "clicked_at"
  | "complained_at"
>;

/**
 * The decision, pure. Statuses only move forward: `pending`/`sent` -> `sent` -> `delivered`, or to
 * `failed`/`bounced`; a late `sent` after `delivered`, and a failure or bounce after `delivered`,
 * move nothing (a hard bounce still lists the address). Engagement (opened, clicked, complained) is
 * recorded whatever the status, and on a notification not yet delivered it proves delivery. The
 * first open, first click and complaint set their timestamp, emit their event and count once; each
 * click is recorded and emits `notification.clicked`. An erased recipient records no engagement.
 */
export function planReceipt(n: PlanRow, r: ReceiptInput): ReceiptPlan {
  const plan: ReceiptPlan = { moved: null, update: null, events: [], counters: [], engagement: null, suppress: null };
  const u: ReceiptUpdate = {
    status: null,
    error: null,
    sentAt: null,
    deliveredAt: null,
    failedAt: null,
    bouncedAt: null,
    openedAt: null,
    clickedAt: null,
    complainedAt: null,
  };
  let touched = false;
  const at = r.at;
  const atIso = at.toISOString();
  const pending = n.status === "pending";
  const open = pending || n.status === "sent";
  const current = () => plan.moved ?? n.status;
  const notification = () => eventNotification({ ...n, status: current() });
  const emit = (type: string, data: Record<string, unknown>) => plan.events.push({ type, data: { notification: notification(), ...data } });
  const move = (status: NonNullable<ReceiptPlan["moved"]>) => {
    plan.moved = status;
    u.status = status;
    touched = true;
  };
  const deliver = () => {
    move("delivered");
    u.sentAt = at;
    u.deliveredAt = at;
    if (pending) plan.counters.push("sent");
    plan.counters.push("delivered");
    emit("notification.delivered", {
      delivered_at: atIso,
      delivery: { delivered_at: atIso, provider: n.provider, message_id: n.provider_message_id },
    });
  };
  const engagementAllowed = n.recipient !== ERASED_RECIPIENT;

  switch (r.kind) {
    case "sent":
      if (pending) {
        move("sent");
        u.sentAt = at;
        plan.counters.push("sent");
        emit("notification.sent", { provider: n.provider });
      }
      break;
    case "delivered":
      if (open) deliver();
      break;
    case "failed":
      if (open) {
        const error = r.error ?? { code: "provider_failed", message: "the provider reported a failure" };
        move("failed");
        u.failedAt = at;
        u.error = error;
        plan.counters.push("failed");
        emit("notification.failed", { error: { ...error, provider: n.provider, attempt: n.attempt_count, will_retry: false } });
      }
      break;
    case "bounced":
      if (open) {
        const reason = r.bounceReason ?? r.error?.message ?? "bounced";
        move("bounced");
        u.sentAt = at;
        u.bouncedAt = at;
        u.error = r.error ?? { code: "bounced", message: reason };
        if (pending) plan.counters.push("sent");
        plan.counters.push("bounced");
        emit("notification.bounced", { bounce_reason: reason });
      }
      break;
    case "opened":
    case "clicked":
    case "complained": {
      if (!engagementAllowed) break;
      if (open) deliver();
      const e = ENGAGEMENT[r.kind];
      const first = n[e.column] === null;
      if (first) {
        u[e.field] = at;
        plan.counters.push(e.counter);
      }
      // opens and complaints are reported once; every click is a new one
      if (first || r.kind === "clicked") {
        touched = true;
        emit(e.event, e.data(r, atIso));
        if (r.kind !== "complained") plan.engagement = engagementOf(r.kind === "opened" ? "open" : "click", r);
      }
      break;
    }
  }
  if (touched) plan.update = u;
  if (r.suppress && suppressionAddress(n.channel, n.recipient)) plan.suppress = r.suppress;
  return plan;
}

/** Engagement receipts: the notification's first-time column, its counter and its SPEC event data. */
const ENGAGEMENT = {
  opened: {
    column: "opened_at",
    field: "openedAt",
    counter: "opened",
    event: "notification.opened",
    data: (r: ReceiptInput, at: string) => ({ opened_at: at, ip: r.ip ?? null, user_agent: r.userAgent ?? null }),
  },
  clicked: {
    column: "clicked_at",
    field: "clickedAt",
    counter: "clicked",
    event: "notification.clicked",
    data: (r: ReceiptInput, at: string) => ({ clicked_at: at, url: r.url ?? null }),
  },
  complained: {
    column: "complained_at",
    field: "complainedAt",
    counter: "complained",
    event: "notification.complained",
    data: (r: ReceiptInput) => ({ complaint_type: r.complaintType ?? "abuse" }),
  },
} as const satisfies Record<
  "opened" | "clicked" | "complained",
  { column: keyof PlanRow; field: keyof ReceiptUpdate; counter: Counter; event: string; data: (r: ReceiptInput, at: string) => Record<string, unknown> }
>;

function engagementOf(kind: "open" | "click", r: ReceiptInput): ReceiptPlan["engagement"] {
  return {
    kind,
    source: r.source,
    linkIndex: r.linkIndex ?? null,
    url: r.url ?? null,
    ip: r.ip ?? null,
    userAgent: r.userAgent ?? null,
    eventKey: r.eventId ?? null,
    at: r.at,
  };
}

/** SPEC's workflow steps create notifications with idempotency key `wfrun:<run_id>:step:<index>[:ch:<channel>]`. */
export function workflowRunIdOf(n: Pick<NotificationRow, "idempotency_key">): string | null {
  const m = /^wfrun:([^:]+):step:\d+/.exec(n.idempotency_key ?? "");
  return m ? m[1]! : null;
}

export interface ReceiptResult {
  /** false: no notification of that scope has this message id (or id) */
  found: boolean;
  /** something was written (status, timestamp, engagement, event or suppression) */
  changed: boolean;
  notificationId?: string;
  /** the notification's status afterwards */
  status?: string;
}

/**
 * Applies one receipt in one transaction: locks the notification (FOR NO KEY UPDATE, one row), writes
 * the move, its engagement row, the suppression entry, its events and rollup counts together. Once
 * committed, a status move of a workflow's notification wakes the run (domain/workflows/wakeups.ts).
 */
export async function applyReceipt(target: ReceiptTarget, r: ReceiptInput): Promise<ReceiptResult> {
  const done = await sql.begin(async (tx) => {
    const n =
      target.kind === "message"
        ? await lockByProviderMessageId(tx, target)
        : await lockNotification(tx, target.notificationId);
    if (!n) return null;
    const plan = planReceipt(n, r);
    let changed = plan.update !== null;
    const scope = { tenantId: n.tenant_id, environment: n.environment };
    // First, so a provider's redelivered event (same sg_event_id) stops here having changed nothing:
    // a concurrent duplicate waits on the unique key and finds it taken once this commits.
    if (plan.engagement && !(await insertEngagement(tx, { ...scope, notificationId: n.id, ...plan.engagement }))) {
      return { n, plan: null, changed: false };
    }
    if (plan.update) await applyReceiptUpdate(tx, n.id, plan.update);
    if (plan.suppress) {
      const address = suppressionAddress(n.channel, n.recipient)!;
      if (await addSuppression(tx, { ...scope, address, channel: n.channel, reason: plan.suppress, notificationId: n.id })) changed = true;
    }
    await emitEvents(tx, plan.events.map((e) => ({ ...scope, ...e })));
    const base = { ...scope, createdAt: n.created_at, channel: n.channel, template: n.template_slug };
    await applyCounters(tx, plan.counters.map((counter): CounterDelta => ({ ...base, counter })));
    return { n, plan, changed };
  });
  if (!done) return { found: false, changed: false };
  const status = done.plan?.moved ?? done.n.status;
  if (done.plan?.moved) recordNotificationStatus(done.n.channel, done.plan.moved);
  const runId = workflowRunIdOf(done.n);
  if (done.plan?.moved && runId) {
    // after COMMIT: a run woken earlier could read the old status
    await wakeWorkflowRuns([{ notificationId: done.n.id, workflowRunId: runId, status: done.plan.moved }]).catch((err) =>
      logger.error({ err, notification_id: done.n.id, workflow_run_id: runId }, "waking the workflow run failed"),
    );
  }
  return { found: true, changed: done.changed, notificationId: done.n.id, status };
}
