// The channel-sender actor: delivers one notification attempt through its channel's provider,
// at most one provider call per attempt number, and moves its status, attempts, events and rollups.
import { defineActor, type ActorContext } from "../runtime/actor";
import { config } from "../config";
import { createProvider, getProviderDefinition } from "../providers/registry";
import type { OutboundMessage, Provider, SendResult } from "../providers/types";
import type { Channel } from "../schemas/channels";
import { applyCounters, type CounterDelta } from "../store/analytics";
import { sql, type Tx } from "../store/db";
import { newId } from "../store/ids";
import { MicroBatcher } from "../store/micro-batcher";
import { eventNotification, type NotificationRow } from "../store/notifications";
import { prepareEvents } from "../domain/events";
import { deliverToInbox, SubscriberNotFoundError } from "../domain/inbox";
import { resolveDelivery, type DeliveryTarget, type StoredContent } from "../domain/notifications";
import { checkSuppression } from "../domain/suppression";
import { wakeWorkflowRuns } from "../domain/workflow-wakeups";
import { createUnsubscribeToken, unsubscribeUrl } from "../domain/unsubscribe-token";
import { channelSenderAddress, senderMessage, type SendMessage } from "../schemas/messages";
import { getRuntime } from "../store/runtime";

export const MAX_ATTEMPTS = 5;
const BASE_BACKOFF_MS = 30_000;
const PROVIDER_DEADLINE_MS = 15_000;
/**
 * A claimed attempt without an outcome whose claim is older than this lost its handler (the process
 * died or the outcome write failed): the provider deadline plus a margin for the claim-to-call and
 * call-to-outcome work. Younger claims belong to a handler that may still be calling the provider.
 */
export const STALE_CLAIM_MS = PROVIDER_DEADLINE_MS + 15_000;
export const OUTCOME_UNKNOWN = { code: "outcome_unknown", message: "the sender stopped during this attempt; the provider may have accepted it" };

/**
 * Handler slots one tenant (tenant + environment) may hold in a sender process once the process
 * is busy. Without it one tenant's slow provider fills every runtime slot (the host's concurrency,
 * 200) through its 256 lanes and every other tenant waits behind it. The share is work-conserving:
 * while fewer than SENDER_BUSY_THRESHOLD slots are in use, a lone tenant may use them all; past it,
 * a tenant at its share waits in memory for a slot (runtime/fair-semaphore.ts), holding none, and
 * the slots above the threshold stay for other tenants. (This used to put such messages back on a
 * timer before their claim: under overload a lone tenant is always over its share, and the whole
 * backlog circulated between the stream and the timers; see docs/notifications.md, overload.)
 */
export const SENDER_TENANT_CONCURRENCY = config.senderTenantConcurrency;
// 16 of the host's 200 slots stay free for other tenants: enough for a newcomer to start at once,
// few enough that a lone tenant's burst keeps most of the host
export const SENDER_BUSY_THRESHOLD = config.senderBusyThreshold;

/** Back-off before attempt `next` (2..5): 30 s doubling, before TIME_SCALE. */
export function retryDelayFor(failedAttempt: number): number {
  return BASE_BACKOFF_MS * 2 ** Math.max(0, failedAttempt - 1);
}

// ---------------------------------------------------------------------------------------------
// Providers are built once per configuration (SMTP pools, FCM token caches live in them).

const providers = new Map<string, { target: DeliveryTarget; provider: Provider }>();

const inboxDeps = {
  async deliver(msg: OutboundMessage) {
    try {
      const { itemId } = await deliverToInbox({
        tenantId: msg.tenantId,
        environment: msg.environment,
        recipient: msg.to,
        notificationId: msg.notificationId,
        title: msg.title ?? null,
        body: msg.body ?? null,
        data: msg.data ?? {},
      });
      return { itemId };
    } catch (err) {
      const e = err as { code?: string; message?: string };
      if (err instanceof SubscriberNotFoundError) throw Object.assign(new Error(e.message ?? "subscriber not found"), { permanent: true, code: e.code ?? "subscriber_not_found" });
      throw err;
    }
  },
};

function providerFor(key: string, target: DeliveryTarget): Provider {
  const hit = providers.get(key);
  if (hit && hit.target.version === target.version) return hit.provider;
  const provider = createProvider(target.provider, { credentials: target.credentials, settings: target.settings }, {
    inbox: inboxDeps,
    timeoutMs: Number(target.settings.timeout_ms ?? 10_000),
    allowHttpEndpoints: !config.isProduction,
  });
  providers.set(key, { target, provider });
  return provider;
}


function rateLimitOf(target: DeliveryTarget): number {
  const own = Number(target.settings.rate_limit_per_second);
  if (Number.isFinite(own) && own > 0) return own;
  return getProviderDefinition(target.provider)?.defaultRateLimitPerSecond ?? 100;
}

// ---------------------------------------------------------------------------------------------
// Claim: attempt n belongs to whoever moves attempt_count from n-1 to n. A redelivered message
// finds attempt_count already n and stops before the provider. Batched across handlers.

interface ClaimItem {
  id: string;
  tenantId: string;
  environment: string;
  attempt: number;
  provider: string;
}

const claimBatcher = new MicroBatcher<ClaimItem, NotificationRow | null>(
  async (items) => {
    // Rows are found by primary key only and locked in id order (the FOR UPDATE sits above the
    // sort): every multi-row writer of notifications locks in that order, so batches cannot
    // deadlock. Tenant, environment, status and attempt are checked on the locked row, never used
    // to find it: with them in the join, a generic plan walked the (tenant, environment, created_at)
    // index for each id, about 3 ms a row once a tenant had 100k notifications (the overload collapse).
    const sorted = [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const ids = sorted.map((i) => i.id);
    const rows = await sql<NotificationRow[]>`
      with locked as (
        select n.id, n.tenant_id, n.environment, n.status, n.attempt_count from notifications n
        where n.id = any(${ids}::uuid[]) order by n.id for no key update
      )
      update notifications n set attempt_count = v.attempt, provider = v.provider, updated_at = now(), claimed_at = now()
      from locked l join unnest(${ids}::uuid[], ${sorted.map((i) => i.tenantId)}::uuid[], ${sorted.map((i) => i.environment)}::text[],
                  ${sorted.map((i) => i.attempt)}::int[], ${sorted.map((i) => i.provider)}::text[]) as v(id, tenant_id, environment, attempt, provider)
        on v.id = l.id
      where n.id = l.id and l.tenant_id = v.tenant_id and l.environment = v.environment
        and l.status = 'pending' and l.attempt_count = v.attempt - 1
      returning n.*`;
    // Duplicates of one message in one batch: the row goes to the first of them only.
    const byId = new Map(rows.map((r) => [r.id, r]));
    return items.map((i) => {
      const row = byId.get(i.id) ?? null;
      byId.delete(i.id);
      return row;
    });
  },
  { maxSize: 500, maxWaitMs: 1, maxConcurrent: 2 },
);

// ---------------------------------------------------------------------------------------------
// Outcome: the attempt row, the guarded status move, its events and its rollup counters, in one
// transaction per batch of handlers (a status move and its event are never separated).

export interface Outcome {
  n: NotificationRow;
  attempt: number;
  provider: string | null;
  status: "sent" | "delivered" | "bounced" | "failed" | "suppressed" | "pending";
  /** the provider was called: record an attempt row */
  attemptRow?: { status: "success" | "failure"; response: Record<string, unknown>; error: { code: string; message: string } | null; durationMs: number };
  providerMessageId?: string | null;
  error?: { code: string; message: string } | null;
  nextAttemptAt?: Date | null;
  suppressedReason?: string | null;
  willRetry?: boolean;
}

async function writeOutcomes(tx: Tx, unsorted: Outcome[]): Promise<{ value: boolean[]; tail: Promise<unknown>[] }> {
  const now = new Date();
  // In id order, like the claim: attempt rows (whose foreign key takes a KEY SHARE lock on their
  // notification) and the status move both touch rows in the one order every writer uses.
  const outs = [...unsorted].sort((a, b) => (a.n.id < b.n.id ? -1 : a.n.id > b.n.id ? 1 : 0));
  const withAttempt = outs.filter((o) => o.attemptRow);
  // Rows travel as one JSON document each (native JSON.stringify, no per-element array escaping).
  // The attempt rows and the status move are independent: both go out in one write.
  let attemptsWritten: Promise<unknown> = Promise.resolve();
  if (withAttempt.length) {
    const doc = JSON.stringify(
      withAttempt.map((o) => ({
        id: newId(),
        notification_id: o.n.id,
        tenant_id: o.n.tenant_id,
        attempt_number: o.attempt,
        status: o.attemptRow!.status,
        provider: o.provider,
        provider_response: o.attemptRow!.response ?? {},
        error: o.attemptRow!.error,
        duration_ms: o.attemptRow!.durationMs,
      })),
    );
    attemptsWritten = tx`
      insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, provider, provider_response, error, duration_ms, created_at)
      select id, notification_id, tenant_id, attempt_number, status, provider, provider_response, error, duration_ms, ${now}
      from jsonb_to_recordset(${doc}::text::jsonb) as a(id uuid, notification_id uuid, tenant_id uuid, attempt_number int, status text,
        provider text, provider_response jsonb, error jsonb, duration_ms int)
      on conflict (notification_id, attempt_number) do nothing`.execute();
    attemptsWritten.catch(() => {}); // awaited with the status move below
  }
  const doc = JSON.stringify(
    outs.map((o) => ({
      id: o.n.id,
      attempt: o.attempt,
      status: o.status,
      provider: o.provider,
      pmid: o.providerMessageId ?? null,
      error: o.error ?? null,
      next_at: o.nextAttemptAt ? o.nextAttemptAt.toISOString() : null,
      reason: o.suppressedReason ?? null,
    })),
  );
  const movedQuery = tx<{ id: string }[]>`
    with locked as (
      select n.id from notifications n where n.id = any(${outs.map((o) => o.n.id)}::uuid[]) order by n.id for no key update
    )
    update notifications n set
      status = v.status,
      provider = coalesce(v.provider, n.provider),
      provider_message_id = coalesce(v.pmid, n.provider_message_id),
      error = v.error,
      next_attempt_at = v.next_at,
      suppressed_reason = v.reason,
      updated_at = ${now},
      sent_at = case when v.status in ('sent', 'delivered', 'bounced') then coalesce(n.sent_at, ${now}) else n.sent_at end,
      delivered_at = case when v.status = 'delivered' then ${now} else n.delivered_at end,
      bounced_at = case when v.status = 'bounced' then ${now} else n.bounced_at end,
      failed_at = case when v.status = 'failed' then ${now} else n.failed_at end
    from locked l join jsonb_to_recordset(${doc}::text::jsonb) as v(id uuid, attempt int, status text, provider text, pmid text, error jsonb,
      next_at timestamptz, reason text) on v.id = l.id
    where n.id = l.id and (n.status = 'pending') is true and n.attempt_count = v.attempt -- "is true": never the partial pending index, see the claim
    returning n.id`.execute();
  // the attempts statement went first: its error, if any, is the cause of the update's
  const [, moved] = await Promise.all([attemptsWritten, movedQuery]);
  const movedIds = new Set(moved.map((m) => m.id));
  const deltas: CounterDelta[] = [];
  const events: { tenantId: string; environment: string; type: string; data: Record<string, unknown> }[] = [];
  for (const o of outs) {
    if (!movedIds.has(o.n.id)) continue;
    const base = { tenantId: o.n.tenant_id, environment: o.n.environment, createdAt: o.n.created_at, channel: o.n.channel, template: o.n.template_slug };
    const emit = (type: string, data: Record<string, unknown>) =>
      events.push({ tenantId: o.n.tenant_id, environment: o.n.environment, type, data });
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
  // Events and counts are not awaited here: they are pipelined with the COMMIT (see inPipelinedTx).
  const ev = events.length ? prepareEvents(tx, events) : null;
  const tail: Promise<unknown>[] = [];
  if (ev) tail.push(ev.insert.execute());
  if (deltas.length) tail.push(applyCounters(tx, deltas));
  return { value: unsorted.map((o) => movedIds.has(o.n.id)), tail };
}

/**
 * A transaction on one reserved connection whose statements are pipelined: BEGIN goes out with
 * fn's first statements and COMMIT with its tail, so a sender batch costs two round trips, not
 * four. A failed statement aborts the transaction; the COMMIT sent behind it then rolls back.
 */
async function inPipelinedTx<T>(fn: (tx: Tx) => Promise<{ value: T; tail: Promise<unknown>[] }>): Promise<T> {
  const c = await sql.reserve();
  try {
    const begin = c`begin`.execute();
    begin.catch(() => {}); // awaited below
    try {
      const out = await fn(c);
      const commit = c`commit`.execute();
      // in sending order, so the first failure reported is the cause, not a later "transaction is aborted"
      const settled = await Promise.allSettled([begin, ...out.tail, commit]);
      const failed = settled.find((r) => r.status === "rejected") as PromiseRejectedResult | undefined;
      if (failed) throw failed.reason;
      return out.value;
    } catch (err) {
      await c`rollback`.catch(() => {});
      throw err;
    }
  } finally {
    c.release();
  }
}

async function flushOutcomes(outs: Outcome[]): Promise<(boolean | Error)[]> {
  try {
    return await inPipelinedTx((tx) => writeOutcomes(tx, outs));
  } catch (err) {
    if (outs.length === 1) return [err instanceof Error ? err : new Error(String(err))];
    const results = await Promise.allSettled(outs.map((o) => inPipelinedTx((tx) => writeOutcomes(tx, [o]))));
    return results.map((r) => (r.status === "fulfilled" ? r.value[0]! : r.reason instanceof Error ? r.reason : new Error(String(r.reason))));
  }
}

const outcomeBatcher = new MicroBatcher<Outcome, boolean | Error>(
  async (outs) => {
    const moved = await flushOutcomes(outs);
    // after commit: the workflow runs of notifications that moved look at their new status
    void wakeWorkflowRuns(outs.map((o, k) => ({ notificationId: o.n.id, workflowRunId: moved[k] === true ? o.n.workflow_run_id : null, status: o.status })));
    return moved;
  },
  { maxSize: 500, maxWaitMs: 2, maxConcurrent: 3 },
);

/** Records an outcome; resolves true when the notification moved (false: it had already moved). */
export async function recordOutcome(o: Outcome): Promise<boolean> {
  const r = await outcomeBatcher.submit(o);
  if (r instanceof Error) throw r;
  return r;
}

// ---------------------------------------------------------------------------------------------

function outboundOf(n: NotificationRow, channel: Channel, unsubscribe: string | null): OutboundMessage {
  const c = (n.content ?? {}) as StoredContent;
  const msg: OutboundMessage = {
    notificationId: n.id,
    tenantId: n.tenant_id,
    environment: n.environment,
    channel,
    to: n.recipient ?? "",
    data: n.data ?? {},
  };
  if (c.subject !== undefined) msg.subject = c.subject;
  if (c.html !== undefined) msg.html = c.html;
  if (c.text !== undefined) msg.text = c.text;
  if (c.content !== undefined) msg.content = c.content;
  if (c.title !== undefined) msg.title = c.title;
  if (c.body !== undefined) msg.body = c.body;
  if (c.providerTemplateId) msg.providerTemplateId = c.providerTemplateId;
  if (unsubscribe) {
    // RFC 8058 one-click: mailbox providers POST "List-Unsubscribe=One-Click" to the https URL.
    msg.headers = { "List-Unsubscribe": `<${unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" };
  }
  return msg;
}

function unsubscribeLinkFor(n: NotificationRow, subscriberId: string | null): string | null {
  if (!subscriberId) return null;
  return unsubscribeUrl(
    createUnsubscribeToken({ tenantId: n.tenant_id, environment: n.environment, subscriberId, channel: "email", category: n.category }),
  );
}

async function callProvider(provider: Provider, msg: OutboundMessage): Promise<{ result: SendResult; durationMs: number }> {
  const started = performance.now();
  let result: SendResult;
  try {
    // Adapters enforce their own deadline; this one bounds an adapter that never settles, so a live
    // handler's claim never outlasts STALE_CLAIM_MS because of its provider call.
    const signal = AbortSignal.timeout(PROVIDER_DEADLINE_MS);
    const deadline = new Promise<never>((_, reject) =>
      signal.addEventListener("abort", () => reject(new Error(`no answer within ${PROVIDER_DEADLINE_MS} ms`)), { once: true }),
    );
    deadline.catch(() => {});
    result = await Promise.race([provider.send(msg, signal), deadline]);
  } catch (err) {
    result = { ok: false, retryable: true, error: { code: "provider_error", message: String((err as Error)?.message ?? err).slice(0, 500) } };
  }
  return { result, durationMs: Math.round(performance.now() - started) };
}

type SendContext = Pick<ActorContext, "schedule"> & Partial<Pick<ActorContext, "deliveries">>;

// ---------------------------------------------------------------------------------------------
// Lost attempts: a claim (attempt_count = n, status pending) without an attempt row n is an attempt
// in progress or one whose handler died after the claim, perhaps after the provider accepted it.

/**
 * Records attempt n as a `failure` with OUTCOME_UNKNOWN when its claim is stale, and moves the
 * notification as a retryable failure of attempt n would (pending with the next attempt due, or
 * failed after the last). Exactly once across processes: the attempt row's unique key decides, and
 * only the writer that inserted it moves the status. Returns the next attempt to schedule (delay
 * counted from the lost attempt's claim, since its back-off already ran while nobody knew), null
 * when nothing was recorded here or nothing follows.
 */
export async function recordLostAttempt(
  ref: { id: string; tenantId: string; environment: string },
  attempt: number,
): Promise<{ recorded: boolean; next: { msg: SendMessage; delayMs: number } | null }> {
  const stale = `${STALE_CLAIM_MS} milliseconds`;
  const done = await sql.begin(async (tx) => {
    const [n] = await tx<(NotificationRow & { claimed: Date })[]>`
      select n.*, coalesce(n.claimed_at, n.updated_at) as claimed from notifications n
      where n.id = ${ref.id} and n.tenant_id = ${ref.tenantId} and n.environment = ${ref.environment}
        and (n.status = 'pending') is true and n.attempt_count = ${attempt}
        and coalesce(n.claimed_at, n.updated_at) < now() - ${stale}::interval
      -- a row a sender batch holds is being worked on: skip it rather than wait (or deadlock)
      for no key update skip locked`;
    if (!n) return null;
    const inserted = await tx`
      insert into notification_attempts (id, notification_id, tenant_id, attempt_number, status, provider, provider_response, error, duration_ms, created_at)
      values (${newId()}, ${n.id}, ${n.tenant_id}, ${attempt}, 'failure', ${n.provider}, '{}'::jsonb, ${JSON.stringify(OUTCOME_UNKNOWN)}::text::jsonb, null, now())
      on conflict (notification_id, attempt_number) do nothing
      returning id`;
    if (!inserted.length) return null; // another process recorded it
    const willRetry = attempt < MAX_ATTEMPTS;
    const dueAt = new Date(Math.max(Date.now(), n.claimed.getTime() + retryDelayFor(attempt) * config.timeScale));
    const { claimed: _claimed, ...row } = n;
    const out = await writeOutcomes(tx, [
      { n: row, attempt, provider: n.provider, status: willRetry ? "pending" : "failed", error: OUTCOME_UNKNOWN, willRetry, nextAttemptAt: willRetry ? dueAt : null },
    ]);
    await Promise.all(out.tail);
    return { willRetry, dueAt, n };
  });
  if (!done) return { recorded: false, next: null };
  if (!done.willRetry) return { recorded: true, next: null };
  const msg = senderMessage({ id: done.n.id, tenantId: done.n.tenant_id, environment: done.n.environment, channel: done.n.channel }, attempt + 1);
  return { recorded: true, next: { msg, delayMs: Math.max(0, done.dueAt.getTime() - Date.now()) } };
}

/** A message whose claim failed: finished, moved on, or attempt n claimed and maybe lost. */
async function onClaimTaken(msg: SendMessage, ctx: SendContext): Promise<void> {
  const [s] = await sql<{ status: string; attempt_count: number; has_outcome: boolean; stale_in_ms: number }[]>`
    select n.status, n.attempt_count,
      exists (select 1 from notification_attempts a where a.notification_id = n.id and a.attempt_number = n.attempt_count) as has_outcome,
      greatest(0, ceil(extract(epoch from coalesce(n.claimed_at, n.updated_at) + ${`${STALE_CLAIM_MS} milliseconds`}::interval - now()) * 1000))::int as stale_in_ms
    from notifications n
    where n.id = ${msg.notificationId} and n.tenant_id = ${msg.tenantId} and n.environment = ${msg.environment}`;
  if (!s || s.status !== "pending" || s.attempt_count !== msg.attempt || s.has_outcome) return;
  if (s.stale_in_ms > 0) {
    // Another handler may be calling the provider right now: leave it. A redelivered message (its
    // handler's process died, or the handler threw) looks again once the claim can be called lost,
    // instead of leaving the attempt to the reconciler's 60 s scan.
    if ((ctx.deliveries ?? 1) > 1) {
      await ctx.schedule(`claim:${msg.notificationId}:${msg.attempt}`, s.stale_in_ms + 250, msg, { unscaled: true });
    }
    return;
  }
  const { next } = await recordLostAttempt({ id: msg.notificationId, tenantId: msg.tenantId, environment: msg.environment }, msg.attempt);
  if (next) await ctx.schedule(`retry:${msg.notificationId}`, next.delayMs, next.msg, { unscaled: true });
}

export async function handleSend(msg: SendMessage, ctx: SendContext): Promise<void> {
  if (msg.type !== "send" || !(msg.attempt >= 1)) return;
  await sendAttempt(msg, ctx);
}

async function sendAttempt(msg: SendMessage, ctx: SendContext): Promise<void> {
  const target = await resolveDelivery(msg.tenantId, msg.environment, msg.channel);
  const providerName = target?.provider ?? null;

  // The provider rate limit and the claim go out together (one round trip less per send); a
  // limited message gives its claim back, so it keeps its attempt number for the rescheduled run.
  const limitP = target
    ? getRuntime().rateLimiter.take(`provider:${msg.tenantId}:${msg.environment}:${target.provider}`, { limit: rateLimitOf(target), periodMs: 1000 })
    : null;
  const [limited, n] = await Promise.all([
    limitP,
    claimBatcher.submit({
      id: msg.notificationId,
      tenantId: msg.tenantId,
      environment: msg.environment,
      attempt: msg.attempt,
      provider: providerName ?? "",
    }),
  ]);
  if (!n) return await onClaimTaken(msg, ctx); // terminal, claimed by another delivery (live or lost), or gone
  if (limited && !limited.allowed) {
    await sql`update notifications set attempt_count = ${msg.attempt - 1} where id = ${n.id} and attempt_count = ${msg.attempt} and (status = 'pending') is true`;
    const wait = Number.isFinite(limited.retryAfterMs) ? Math.max(1, limited.retryAfterMs) : 1000;
    await ctx.schedule(`rl:${msg.notificationId}:${msg.attempt}`, wait, msg, { unscaled: true });
    return;
  }

  const { reason, subscriberId } = await checkSuppression(n);
  if (reason) {
    await recordOutcome({ n, attempt: msg.attempt, provider: providerName, status: "suppressed", suppressedReason: reason });
    return;
  }
  if (!target) {
    await recordOutcome({
      n,
      attempt: msg.attempt,
      provider: null,
      status: "failed",
      error: { code: "channel_not_configured", message: `The ${n.channel} channel is not configured` },
    });
    return;
  }

  let provider: Provider;
  try {
    provider = providerFor(`${msg.tenantId}:${msg.environment}:${msg.channel}`, target);
  } catch (err) {
    await recordOutcome({
      n,
      attempt: msg.attempt,
      provider: target.provider,
      status: "failed",
      error: { code: (err as { code?: string }).code ?? "provider_unavailable", message: String((err as Error).message) },
    });
    return;
  }

  const unsubscribe = n.channel === "email" ? unsubscribeLinkFor(n, subscriberId) : null;
  const { result, durationMs } = await callProvider(provider, outboundOf(n, n.channel as Channel, unsubscribe));

  if (result.ok) {
    await recordOutcome({
      n,
      attempt: msg.attempt,
      provider: target.provider,
      status: result.finalStatus ?? "sent",
      providerMessageId: result.providerMessageId,
      error: result.finalStatus === "bounced" ? { code: "bounced", message: String((result.response as any)?.bounce_reason ?? "recipient bounced") } : null,
      attemptRow: { status: "success", response: result.response ?? {}, error: null, durationMs },
    });
    return;
  }

  const willRetry = result.retryable && msg.attempt < MAX_ATTEMPTS;
  const scaled = retryDelayFor(msg.attempt) * config.timeScale;
  const waitMs = result.retryAfterMs !== undefined ? Math.max(result.retryAfterMs, 0) : null;
  const moved = await recordOutcome({
    n,
    attempt: msg.attempt,
    provider: target.provider,
    status: willRetry ? "pending" : "failed",
    error: result.error,
    willRetry,
    nextAttemptAt: willRetry ? new Date(Date.now() + (waitMs ?? scaled)) : null,
    attemptRow: { status: "failure", response: result.response ?? {}, error: result.error, durationMs },
  });
  if (willRetry && moved) {
    const next = { ...msg, attempt: msg.attempt + 1 };
    // The provider's Retry-After is real time; our own back-off is scaled by TIME_SCALE.
    if (waitMs !== null) await ctx.schedule(`retry:${msg.notificationId}`, waitMs, next, { unscaled: true });
    else await ctx.schedule(`retry:${msg.notificationId}`, retryDelayFor(msg.attempt), next);
  }
}

export const channelSender = defineActor<SendMessage>({
  ...channelSenderAddress,
  handle: (msg, ctx) => handleSend(msg, ctx),
  fairness: { groupOf: (m) => `${m.tenantId}:${m.environment}`, share: SENDER_TENANT_CONCURRENCY, busyThreshold: SENDER_BUSY_THRESHOLD },
  // a little above the provider deadline: a handler stuck past it (a claim or outcome write that
  // never returns) gives its lane and slot back and is retried; the attempt claim keeps it single
  deadlineMs: PROVIDER_DEADLINE_MS + 5_000,
});
