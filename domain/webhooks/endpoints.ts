// Webhook use cases behind the routes (SPEC "Webhooks", DESIGN.md 6): create, update, delete with
// their audit entries, the synchronous test attempt, and the retry and replay of deliveries.
import { randomBytes } from "node:crypto";
import { AppError, conflict, notFound, validationFailed } from "../../basics/errors";
import { logger } from "../../basics/log";
import { config } from "../../config";
import { retryTimerId, webhookDispatcherAddress } from "./webhook-dispatcher-mail";
import { MAX_WEBHOOKS_PER_TENANT, type WebhookEventType } from "../../schemas/webhooks";
import { writeAudit, type ActorType } from "../../store/audit";
import { sql, type Scope } from "../../store/db";
import { newId, isUuid } from "../../store/ids";
import { getRuntime } from "../../store/runtime-handle";
import { iso } from "../../store/time";
import {
  findDelivery,
  insertPendingDeliveries,
  replayCandidates,
  type DeliveryRow,
} from "../../store/webhook-deliveries";
import { addToOutbox, deleteWebhook as deleteRow, findWebhook, insertWebhook, updateWebhook as updateRow, type WebhookRow } from "../../store/webhooks";
import { urlProblem } from "./address";
import { assertWithinPlan } from "../billing/limits";
import { recordAttempt } from "./dispatch";
import { secretOf, sendEvent } from "./signed-request";
import { keyDays } from "../../store/history-keys";

/** Who asks, for the audit entry (the API key or dashboard user; IP and user agent of the request). */
export interface Caller extends Scope {
  actorType: ActorType;
  actorId: string | null;
  ip?: string | null;
  userAgent?: string | null;
}

/** How many events one replay call queues at most; the answer says when the window held more. */
export const REPLAY_LIMIT = 10_000;

function audit(c: Caller, action: string, webhookId: string, metadata: Record<string, unknown>) {
  return {
    tenantId: c.tenantId,
    actorType: c.actorType,
    actorId: c.actorId,
    action,
    resourceType: "webhook",
    resourceId: webhookId,
    metadata,
    ip: c.ip ?? null,
    userAgent: c.userAgent ?? null,
  };
}

const webhookNotFound = () => notFound("webhook_not_found", "Webhook not found");

/** A generated signing secret: the Standard Webhooks form, `whsec_` + base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

function checkEvents(events: string[]): string[] {
  if (new Set(events).size !== events.length) throw validationFailed({ events: ["must not repeat an event type"] });
  return events;
}

async function checkUrl(url: string, field = "url"): Promise<void> {
  const problem = await urlProblem(url);
  if (problem) throw validationFailed({ [field]: [problem] });
}

export async function findScopedWebhook(scope: Scope, id: string): Promise<WebhookRow> {
  if (!isUuid(id)) throw webhookNotFound();
  const row = await findWebhook(sql, scope, id);
  if (!row) throw webhookNotFound();
  return row;
}

export async function createWebhook(
  c: Caller,
  input: { url: string; events: WebhookEventType[]; secret?: string; description?: string | null; active?: boolean },
): Promise<{ row: WebhookRow; secret: string }> {
  const events = checkEvents(input.events);
  await checkUrl(input.url);
  const secret = input.secret ?? generateSigningSecret();
  const row = await sql.begin(async (tx) => {
    const row = await insertWebhook(
      tx,
      c,
      { url: input.url, events, active: input.active ?? true, description: input.description ?? null },
      secret,
      MAX_WEBHOOKS_PER_TENANT,
    );
    if (!row) return null;
    await assertWithinPlan(tx, c, "webhooks");
    await writeAudit(tx, audit(c, "webhook.created", row.id, { url: row.url, events: row.events }));
    return row;
  });
  if (!row) {
    throw new AppError("webhook_limit_reached", `A tenant may have at most ${MAX_WEBHOOKS_PER_TENANT} webhooks; delete one first`, {
      url: [`at most ${MAX_WEBHOOKS_PER_TENANT} webhooks per tenant`],
    });
  }
  return { row, secret };
}

export async function updateWebhook(
  c: Caller,
  id: string,
  patch: { url?: string; events?: WebhookEventType[]; active?: boolean; description?: string | null },
): Promise<WebhookRow> {
  if (!isUuid(id)) throw webhookNotFound();
  if (patch.events) checkEvents(patch.events);
  if (patch.url !== undefined) await checkUrl(patch.url);
  return await sql.begin(async (tx) => {
    const cur = await findWebhook(tx, c, id, true);
    if (!cur) throw webhookNotFound();
    const next = {
      url: patch.url ?? cur.url,
      events: patch.events ?? cur.events,
      active: patch.active ?? cur.active,
      description: patch.description !== undefined ? patch.description : cur.description,
    };
    const row = await updateRow(tx, id, next, patch.active === true && !cur.active);
    await writeAudit(tx, audit(c, "webhook.updated", id, { url: row.url, events: row.events, active: row.active }));
    return row;
  });
}

export async function deleteWebhook(c: Caller, id: string): Promise<void> {
  if (!isUuid(id)) throw webhookNotFound();
  await sql.begin(async (tx) => {
    const cur = await findWebhook(tx, c, id, true);
    if (!cur) throw webhookNotFound();
    await deleteRow(tx, id);
    await writeAudit(tx, audit(c, "webhook.deleted", id, { url: cur.url }));
  });
}

// ---------------------------------------------------------------------------------------------
// The test endpoint: one synchronous signed notification.test attempt, recorded as a delivery.

const SAMPLE_NOTIFICATION = { id: "00000000-0000-7000-8000-000000000000", status: "delivered", channel: "email", to: "test@example.com", subject: "Test notification" };
const SAMPLE_RUN = {
  run_id: "00000000-0000-7000-8000-000000000001",
  workflow_id: "00000000-0000-7000-8000-000000000002",
  workflow_slug: "welcome",
  workflow_version: 1,
  recipient: "test@example.com",
};

/** Sample data in the shape of `type` (SPEC "Events" and DESIGN.md 6), for a test payload. */
export function sampleEventData(type: WebhookEventType, at = new Date().toISOString()): Record<string, unknown> {
  const notification = SAMPLE_NOTIFICATION;
  switch (type) {
    case "notification.created":
      return { notification: { ...notification, status: "pending" }, subscriber: { id: "00000000-0000-7000-8000-000000000003", external_id: "user-123" } };
    case "notification.sent":
      return { notification: { ...notification, status: "sent" }, provider: "sandbox" };
    case "notification.delivered":
      return { notification, delivered_at: at, delivery: { delivered_at: at, provider: "sandbox", message_id: "test-message" } };
    case "notification.failed":
      return { notification: { ...notification, status: "failed" }, error: { code: "test", message: "Test failure", provider: "sandbox", attempt: 1, will_retry: false } };
    case "notification.bounced":
      return { notification: { ...notification, status: "bounced" }, bounce_reason: "Test bounce" };
    case "notification.opened":
      return { notification, opened_at: at, ip: null, user_agent: null };
    case "notification.clicked":
      return { notification, clicked_at: at, url: "https://example.com/" };
    case "notification.complained":
      return { notification, complaint_type: "abuse" };
    case "workflow.triggered":
      return { ...SAMPLE_RUN, status: "running" };
    case "workflow.step.completed":
      return { ...SAMPLE_RUN, step: 0, step_result: { type: "send", step: 0, status: "sent", channel: "email" }, status: "running" };
    case "workflow.step.failed":
      return { ...SAMPLE_RUN, step: 0, step_result: { type: "send", step: 0, status: "failed", channel: "email" }, status: "failed" };
    case "workflow.completed":
      return { ...SAMPLE_RUN, status: "completed" };
    case "broadcast.completed":
      return {
        broadcast: {
          id: "00000000-0000-7000-8000-000000000005",
          topic: "plan:pro",
          workflow_slug: "welcome",
          workflow_version: 1,
          status: "completed",
          recipients: 2,
          runs_created: 2,
          created_at: at,
          completed_at: at,
        },
      };
    case "inbox.notification.received":
    case "inbox.notification.read":
      return {
        subscriber_id: "00000000-0000-7000-8000-000000000003",
        external_id: "user-123",
        item: { id: "00000000-0000-7000-8000-000000000004", title: "Test", body: "Test item", read: type === "inbox.notification.read" },
      };
    case "quota.warning":
    case "quota.exceeded": {
      const percent = type === "quota.warning" ? 80 : 100;
      return { plan_id: "growth", period_start: "2026-03-01T00:00:00.000Z", period_end: "2026-04-01T00:00:00.000Z", limit: 100000, usage: percent * 1000, threshold_percent: percent };
    }
    case "channel.provider.circuit_opened":
    case "channel.provider.circuit_closed": {
      const opened = type === "channel.provider.circuit_opened";
      return {
        channel: "sms",
        provider: "twilio",
        role: "primary",
        circuit: opened ? "open" : "closed",
        opened_at: opened ? at : null,
        failures: opened ? 5 : 0,
        last_error: opened ? "http_503: Service Unavailable" : null,
      };
    }
    case "notification.test":
      return {};
    case "subscriber.preferences_updated":
      return {
        subscriber: { id: "00000000-0000-7000-8000-000000000003", external_id: "user-123" },
        source: "preference_center",
        preferences: [{ category: "marketing", channel: "email", enabled: false }],
      };
  }
}

export interface TestResult {
  success: boolean;
  status_code: number | null;
  duration_ms: number;
  delivery_id: string;
  error: { code: string; message: string } | null;
}

export async function testWebhook(c: Caller, id: string, opts: { event?: WebhookEventType; overrideUrl?: string }): Promise<TestResult> {
  const w = await findScopedWebhook(c, id);
  if (opts.overrideUrl !== undefined) await checkUrl(opts.overrideUrl, "override_url");
  const now = new Date();
  const event = {
    id: newId(),
    type: "notification.test",
    created_at: now.toISOString(),
    data: {
      ...(opts.event ? sampleEventData(opts.event, now.toISOString()) : {}),
      webhook_id: w.id,
      message: opts.event ? `Test event in the shape of ${opts.event}` : "Test event from NMS",
    },
  };
  const out = await sendEvent(opts.overrideUrl ?? w.url, secretOf(w), event);
  const deliveryId = newId();
  await recordAttempt({
    id: deliveryId,
    webhookId: w.id,
    tenantId: w.tenant_id,
    eventId: event.id,
    eventType: event.type,
    attempt: 1,
    kind: "test",
    status: out.ok ? "success" : "failed",
    responseStatus: out.status,
    responseBody: out.body,
    durationMs: out.durationMs,
    error: out.error,
    nextRetryAt: null,
  });
  return { success: out.ok, status_code: out.status, duration_ms: out.durationMs, delivery_id: deliveryId, error: out.error };
}

// ---------------------------------------------------------------------------------------------
// Retry and replay: extra attempts recorded as pending and queued through the outbox in one
// transaction (the relay sends them), so a crash after the answer loses none. They replace what
// remains of an event's automatic schedule.

function assertActive(w: WebhookRow) {
  if (!w.active) throw new AppError("webhook_inactive", "The webhook is inactive; activate it (PUT active: true) first");
}

async function forgetAutomaticRetries(webhookId: string, eventIds: string[]) {
  try {
    const runtime = getRuntime();
    await Promise.all(eventIds.map((e) => runtime.cancel(webhookDispatcherAddress, retryTimerId(webhookId, e))));
  } catch (err) {
    // harmless: a timer that fires finds a later attempt recorded and stops
    logger.warn({ err, webhook_id: webhookId }, "could not cancel automatic webhook retries");
  }
}

export async function retryDelivery(c: Caller, webhookId: string, deliveryId: string): Promise<DeliveryRow> {
  const w = await findScopedWebhook(c, webhookId);
  if (!isUuid(deliveryId)) throw notFound("delivery_not_found", "Delivery not found");
  const d = await findDelivery(sql, w.id, deliveryId);
  if (!d) throw notFound("delivery_not_found", "Delivery not found");
  if (d.kind === "test") throw new AppError("delivery_not_retryable", "Test deliveries are not retried; call POST /v1/webhooks/:id/test again");
  assertActive(w);
  const [event] = await sql<{ id: string; type: string }[]>`select id, type from events where id = ${d.event_id} ${keyDays("id", [d.event_id])}`;
  if (!event) throw notFound("event_not_found", "The event of this delivery no longer exists");
  const pending = await sql.begin(async (tx) => {
    const [row] = await insertPendingDeliveries(tx, { id: w.id, tenantId: w.tenant_id }, [{ id: newId(), eventId: event.id, eventType: event.type }]);
    if (!row) throw conflict("conflict", "Another attempt of this event was recorded at the same time; try again");
    await addToOutbox(tx, [{ webhookId: w.id, eventId: event.id, deliveryId: row.id }]);
    await writeAudit(tx, audit(c, "webhook.delivery_retried", w.id, { delivery_id: d.id, event_id: event.id, event_type: event.type, attempt: row.attempt }));
    return row;
  });
  await forgetAutomaticRetries(w.id, [event.id]);
  return pending;
}

export async function replayWebhook(
  c: Caller,
  webhookId: string,
  q: { since: string; until?: string; events?: WebhookEventType[] },
): Promise<{ queued: number; truncated: boolean; last_event_at: string | null }> {
  const w = await findScopedWebhook(c, webhookId);
  const since = new Date(q.since);
  const until = q.until ? new Date(q.until) : new Date();
  if (Number.isNaN(since.getTime())) throw validationFailed({ since: ["must be an ISO 8601 date-time"] });
  if (Number.isNaN(until.getTime())) throw validationFailed({ until: ["must be an ISO 8601 date-time"] });
  if (until <= since) throw validationFailed({ until: ["must be after since"] });
  const types = q.events ? checkEvents(q.events) : w.events;
  const outside = types.filter((t) => !w.events.includes(t));
  if (outside.length) throw validationFailed({ events: [`this webhook does not subscribe to ${outside.join(", ")}`] });
  assertActive(w);
  // events from before the webhook existed were never meant for it
  const from = since < w.created_at ? w.created_at : since;
  const found = await replayCandidates(c, w.id, { types, since: from, until, limit: REPLAY_LIMIT + 1 });
  const truncated = found.length > REPLAY_LIMIT;
  const events = found.slice(0, REPLAY_LIMIT);
  const queued = await sql.begin(async (tx) => {
    const rows = await insertPendingDeliveries(
      tx,
      { id: w.id, tenantId: w.tenant_id },
      events.map((e) => ({ id: newId(), eventId: e.id, eventType: e.type })),
    );
    await addToOutbox(tx, rows.map((r) => ({ webhookId: w.id, eventId: r.event_id, deliveryId: r.id })));
    await writeAudit(
      tx,
      audit(c, "webhook.replayed", w.id, { since: from.toISOString(), until: until.toISOString(), events: types, queued: rows.length, truncated }),
    );
    return rows.length;
  });
  if (events.length) await forgetAutomaticRetries(w.id, events.map((e) => e.id));
  return { queued, truncated, last_event_at: events.length ? iso(events[events.length - 1]!.created_at) : null };
}
