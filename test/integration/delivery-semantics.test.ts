// The channel sender's guarantees, driven by calling its handler directly (no host reads the
// stream here): one provider call per attempt under redelivery, suppression reasons, rate limits,
// events and rollups in the status change's transaction, and the reconciler.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sendAttempt } from "../../domain/delivery/send-attempt";
import { recordOutcome } from "../../domain/delivery/outcomes";
import { STALE_CLAIM_MS } from "../../domain/delivery/policy";
import { senderMessage, type SendMessage } from "../../domain/delivery/channel-sender-mail";
import { reconcileOnce } from "../../domain/delivery/reconcile";
import { config } from "../../config";
import { checkSuppression, suppressionReason } from "../../domain/delivery/suppression";
import { createUnsubscribeToken } from "../../domain/subscribers/unsubscribe-token";
import { blockDomain, unblockDomain } from "../../store/blocked-domains";
import { sql } from "../../store/db";
import { call, createTenant, createListeningTenant } from "../support/fixtures";
import * as fakeTwilio from "../support/fake-twilio";
import { connect, deletePrefix } from "../support/runtime-redis";
import { expectNoLiveSender } from "./delivery-support";

const SID = "AC" + "0123456789abcdef".repeat(2);
let tw: fakeTwilio.FakeTwilio;
let T: Awaited<ReturnType<typeof createTenant>>;
const blocked = `blk-${crypto.randomUUID().slice(0, 8)}.example`;

interface Scheduled {
  timerId: string;
  delayMs: number;
  msg: SendMessage;
  opts?: { unscaled?: boolean };
}
function fakeCtx(deliveries = 1) {
  const scheduled: Scheduled[] = [];
  return {
    scheduled,
    deliveries,
    async schedule(timerId: string, delayMs: number, msg: any, opts?: { unscaled?: boolean }) {
      scheduled.push({ timerId, delayMs, msg, opts });
      return Date.now() + delayMs;
    },
  };
}

async function accept(key: string, body: Record<string, unknown>) {
  const r = await call("POST", "/v1/notifications", { key, body });
  expect(r.status).toBe(202);
  const [row] = await sql`select * from notifications where id = ${r.body.data.id}`;
  return row!;
}

const msgOf = (row: any, attempt = 1) => senderMessage({ id: row.id, tenantId: row.tenant_id, environment: row.environment, channel: row.channel }, attempt);

beforeAll(async () => {
  await expectNoLiveSender(); // this file is the only consumer of its messages
  tw = await fakeTwilio.start();
  T = await createListeningTenant();
  const r = await call("POST", "/v1/channels", {
    key: T.secretKey,
    body: { channel: "sms", provider: "twilio", credentials: { account_sid: SID, auth_token: "tok" }, settings: { from: "+14155550100", base_url: tw.url, rate_limit_per_second: 1000 } },
  });
  expect(r.status).toBe(201);
});

afterAll(async () => {
  await tw.stop();
  await unblockDomain(blocked).catch(() => {});
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
});

describe("at most one provider call per attempt number", () => {
  test("the same message handled twice (sequentially) makes ONE provider call and one attempt row", async () => {
    tw.reset();
    const row = await accept(T.secretKey, { channel: "sms", to: "+5511912345001", data: { content: "once" } });
    const m = msgOf(row);
    await sendAttempt(m, fakeCtx());
    await sendAttempt(m, fakeCtx());
    expect(tw.requests.filter((r) => r.kind === "send")).toHaveLength(1);
    const attempts = await sql`select attempt_number from notification_attempts where notification_id = ${row.id}`;
    expect(attempts).toHaveLength(1);
    const [n] = await sql`select status, attempt_count from notifications where id = ${row.id}`;
    expect(n).toMatchObject({ status: "sent", attempt_count: 1 });
  });

  test("the same message handled twice concurrently makes ONE provider call", async () => {
    tw.reset();
    const row = await accept(T.secretKey, { channel: "sms", to: "+5511912345002", data: { content: "race" } });
    const m = msgOf(row);
    await Promise.all([sendAttempt(m, fakeCtx()), sendAttempt(m, fakeCtx()), sendAttempt(m, fakeCtx())]);
    expect(tw.requests.filter((r) => r.kind === "send")).toHaveLength(1);
  });

  test("the provider gets the notification id as its idempotency reference", async () => {
    tw.reset();
    const row = await accept(T.secretKey, { channel: "sms", to: "+5511912345003", data: { content: "ref" } });
    await sendAttempt(msgOf(row), fakeCtx());
    const [n] = await sql`select provider_message_id from notifications where id = ${row.id}`;
    expect(n!.provider_message_id).toBe(tw.messages[0]!.sid);
  });

  test("a retryable failure schedules attempt 2 with back-off (30 s before TIME_SCALE) and a stale attempt-1 message then does nothing", async () => {
    tw.reset();
    tw.script({ kind: "server_error" });
    const row = await accept(T.secretKey, { channel: "sms", to: "+5511912345004", data: { content: "retry" } });
    const ctx = fakeCtx();
    await sendAttempt(msgOf(row), ctx);
    expect(ctx.scheduled).toHaveLength(1);
    expect(ctx.scheduled[0]!.msg.attempt).toBe(2);
    expect(ctx.scheduled[0]!.delayMs).toBe(30_000);
    expect(ctx.scheduled[0]!.opts?.unscaled).toBeFalsy();
    const [n] = await sql`select status, attempt_count, next_attempt_at, error from notifications where id = ${row.id}`;
    expect(n).toMatchObject({ status: "pending", attempt_count: 1 });
    expect(n!.next_attempt_at).toBeTruthy();
    await sendAttempt(msgOf(row, 1), fakeCtx()); // redelivery of the old message
    expect(tw.requests.filter((r) => r.kind === "send")).toHaveLength(1);
    await sendAttempt(ctx.scheduled[0]!.msg, fakeCtx());
    const [done] = await sql`select status, attempt_count from notifications where id = ${row.id}`;
    expect(done).toMatchObject({ status: "sent", attempt_count: 2 });
    const events = await sql`select type, data from events where tenant_id = ${T.tenant.id} and data -> 'notification' ->> 'id' = ${row.id} order by created_at`;
    expect(events.map((e) => e.type)).toEqual(["notification.created", "notification.failed", "notification.sent"]);
    expect(events[1]!.data.error).toMatchObject({ provider: "twilio", attempt: 1, will_retry: true });
  });

  test("Retry-After from the provider is honoured (unscaled)", async () => {
    tw.reset();
    tw.script({ kind: "rate_limit", retryAfter: 7 });
    const row = await accept(T.secretKey, { channel: "sms", to: "+5511912345005", data: { content: "429" } });
    const ctx = fakeCtx();
    await sendAttempt(msgOf(row), ctx);
    expect(ctx.scheduled[0]).toMatchObject({ delayMs: 7000, opts: { unscaled: true } });
  });

  test("after 5 attempts a retryable failure is final: failed, will_retry false", async () => {
    tw.reset();
    tw.always({ kind: "server_error" });
    const row = await accept(T.secretKey, { channel: "sms", to: "+5511912345006", data: { content: "five" } });
    let m: SendMessage | undefined = msgOf(row);
    let calls = 0;
    while (m && calls < 10) {
      const ctx = fakeCtx();
      await sendAttempt(m, ctx);
      calls++;
      m = ctx.scheduled[0]?.msg;
    }
    tw.always(undefined);
    expect(calls).toBe(5);
    const [n] = await sql`select status, attempt_count from notifications where id = ${row.id}`;
    expect(n).toMatchObject({ status: "failed", attempt_count: 5 });
    const [last] = await sql`select data from events where type = 'notification.failed' and data -> 'notification' ->> 'id' = ${row.id} order by created_at desc limit 1`;
    expect(last!.data.error).toMatchObject({ attempt: 5, will_retry: false });
  });
});

// QA (kill -9 mid-attempt): the claim moved attempt_count to n and committed, the provider was called, the
// process died before the outcome. The crash is simulated exactly: the claim as the sender writes it, no outcome.
describe("a sender that died mid-attempt: the attempt is recorded as outcome_unknown and retried (at least once)", () => {
  const UNKNOWN = { code: "outcome_unknown", message: "the sender stopped during this attempt; the provider may have accepted it" };
  async function crashedClaim(id: string, attempt: number, age: string) {
    await sql`update notifications set attempt_count = ${attempt}, provider = 'twilio',
      claimed_at = now() - ${age}::interval, updated_at = now() - ${age}::interval where id = ${id}`;
  }
  const sends = () => tw.requests.filter((r) => r.kind === "send").length;
  const attempts = async (id: string) =>
    (await sql`select attempt_number, status, provider, error, duration_ms from notification_attempts where notification_id = ${id} order by attempt_number`).map((a) => ({ ...a }));

  test("a claim records when it was taken (claimed_at)", async () => {
    tw.reset();
    const row = await accept(T.secretKey, { channel: "sms", to: "+5511912345601", data: { content: "c" } });
    await sendAttempt(msgOf(row), fakeCtx());
    const [n] = await sql`select claimed_at, now() - claimed_at < interval '1 minute' as recent from notifications where id = ${row.id}`;
    expect(n!.recent).toBe(true);
  });

  test("redelivered (ctx.deliveries 2) after the claim went stale: attempt 1 recorded once as outcome_unknown, then exactly one further provider call", async () => {
    tw.reset();
    const row = await accept(T.secretKey, { channel: "sms", to: "+5511912345602", data: { content: "crash" } });
    await crashedClaim(row.id, 1, "10 minutes");
    const ctx = fakeCtx(2);
    await sendAttempt(msgOf(row, 1), ctx);
    expect(sends()).toBe(0);
    expect(await attempts(row.id)).toEqual([{ attempt_number: 1, status: "failure", provider: "twilio", error: UNKNOWN, duration_ms: null }]);
    const [n] = await sql`select status, attempt_count, error from notifications where id = ${row.id}`;
    expect(n).toMatchObject({ status: "pending", attempt_count: 1, error: UNKNOWN });
    // the normal retry policy, counted from the lost attempt's claim (long past here): due now, not after the reconciler
    expect(ctx.scheduled).toHaveLength(1);
    expect(ctx.scheduled[0]!.msg.attempt).toBe(2);
    expect(ctx.scheduled[0]!.delayMs).toBe(0);
    expect(ctx.scheduled[0]!.opts?.unscaled).toBe(true);

    await sendAttempt(msgOf(row, 1), fakeCtx(3)); // another redelivery of the old message changes nothing
    await sendAttempt(ctx.scheduled[0]!.msg, fakeCtx());
    await sendAttempt(ctx.scheduled[0]!.msg, fakeCtx(2)); // and the retry itself, redelivered
    expect(sends()).toBe(1);
    const [done] = await sql`select status, attempt_count from notifications where id = ${row.id}`;
    expect(done).toMatchObject({ status: "sent", attempt_count: 2 });
    expect((await attempts(row.id)).map((a) => [a.attempt_number, a.status])).toEqual([[1, "failure"], [2, "success"]]);
    const events = await sql`select type, data from events where tenant_id = ${T.tenant.id} and data -> 'notification' ->> 'id' = ${row.id} order by created_at`;
    expect(events.map((e) => e.type)).toEqual(["notification.created", "notification.failed", "notification.sent"]);
    expect(events[1]!.data.error).toMatchObject({ code: "outcome_unknown", provider: "twilio", attempt: 1, will_retry: true });
  });

  test("two processes noticing the same lost attempt at once record it once and schedule one retry", async () => {
    tw.reset();
    const row = await accept(T.secretKey, { channel: "sms", to: "+5511912345603", data: { content: "twice" } });
    await crashedClaim(row.id, 1, "10 minutes");
    const ctxs = [fakeCtx(2), fakeCtx(2), fakeCtx(1), fakeCtx(4)];
    await Promise.all(ctxs.map((c) => sendAttempt(msgOf(row, 1), c)));
    expect(await attempts(row.id)).toHaveLength(1);
    // one retry: a redelivery that came after the record may schedule it again, under the same timer
    // id (which replaces it), for the same attempt
    const scheduled = ctxs.flatMap((c) => c.scheduled);
    expect(scheduled.length).toBeGreaterThanOrEqual(1);
    expect(new Set(scheduled.map((x) => x.timerId)).size).toBe(1);
    expect(new Set(scheduled.map((x) => x.msg.attempt))).toEqual(new Set([2]));
    const failed = await sql`select 1 from events where type = 'notification.failed' and data -> 'notification' ->> 'id' = ${row.id}`;
    expect(failed).toHaveLength(1);
    expect(sends()).toBe(0);
  });

  test("a handler killed after recording a failure but before scheduling the retry: its redelivery schedules it, due when the record said", async () => {
    tw.reset();
    const row = await accept(T.secretKey, { channel: "sms", to: "+5511912345606", data: { content: "unscheduled" } });
    await crashedClaim(row.id, 1, "10 minutes");
    // the first handler records the lost attempt and its retry... and dies before the timer is written
    const died = fakeCtx(2);
    await sendAttempt(msgOf(row, 1), died);
    expect(died.scheduled.map((x) => x.msg.attempt)).toEqual([2]);
    const [n] = await sql`select status, attempt_count, next_attempt_at from notifications where id = ${row.id}`;
    expect(n).toMatchObject({ status: "pending", attempt_count: 1 });
    // a duplicate first delivery (another copy of the message) leaves it: a live handler schedules
    const dup = fakeCtx(1);
    await sendAttempt(msgOf(row, 1), dup);
    expect(dup.scheduled).toHaveLength(0);
    // the message comes back to the next owner (a redelivery): the retry is scheduled, at its due time,
    // under the timer id the first handler would have used (not left to the reconciler's 60 s scan)
    const next = fakeCtx(2);
    await sendAttempt(msgOf(row, 1), next);
    expect(next.scheduled).toHaveLength(1);
    expect(next.scheduled[0]!.timerId).toBe(died.scheduled[0]!.timerId);
    expect(next.scheduled[0]!.msg).toMatchObject({ notificationId: row.id, attempt: 2 });
    expect(next.scheduled[0]!.opts?.unscaled).toBe(true);
    expect(next.scheduled[0]!.delayMs).toBeLessThanOrEqual(Math.max(0, new Date(n!.next_attempt_at).getTime() - Date.now()) + 1000);
    expect(sends()).toBe(0);
    expect(await attempts(row.id)).toHaveLength(1);
  });

  test("a fresh claim is another handler's: left alone (no call, no attempt row); a redelivery looks again when it turns stale", async () => {
    tw.reset();
    const row = await accept(T.secretKey, { channel: "sms", to: "+5511912345604", data: { content: "fresh" } });
    await crashedClaim(row.id, 1, "2 seconds");
    const first = fakeCtx(1);
    await sendAttempt(msgOf(row, 1), first); // a duplicate of a message being handled right now
    expect(first.scheduled).toHaveLength(0);
    const again = fakeCtx(2);
    await sendAttempt(msgOf(row, 1), again);
    expect(sends()).toBe(0);
    expect(await attempts(row.id)).toHaveLength(0);
    const [n] = await sql`select status, attempt_count from notifications where id = ${row.id}`;
    expect(n).toMatchObject({ status: "pending", attempt_count: 1 });
    expect(again.scheduled).toHaveLength(1);
    expect(again.scheduled[0]!.msg.attempt).toBe(1);
    expect(again.scheduled[0]!.opts?.unscaled).toBe(true);
    expect(again.scheduled[0]!.delayMs).toBeGreaterThan(STALE_CLAIM_MS - 5000);
    expect(again.scheduled[0]!.delayMs).toBeLessThanOrEqual(STALE_CLAIM_MS);
    // when it comes back (a timer message: a first delivery) the claim is stale: recorded and retried
    await crashedClaim(row.id, 1, "10 minutes");
    const later = fakeCtx(1);
    await sendAttempt(again.scheduled[0]!.msg, later);
    expect((await attempts(row.id)).map((a) => a.error.code)).toEqual(["outcome_unknown"]);
    expect(later.scheduled.map((s) => s.msg.attempt)).toEqual([2]);
  });

  test("the 5th attempt lost: failed with outcome_unknown, will_retry false, no further call", async () => {
    tw.reset();
    const row = await accept(T.secretKey, { channel: "sms", to: "+5511912345605", data: { content: "last" } });
    await crashedClaim(row.id, 5, "10 minutes");
    const ctx = fakeCtx(2);
    await sendAttempt(msgOf(row, 5), ctx);
    expect(ctx.scheduled).toHaveLength(0);
    expect(sends()).toBe(0);
    const [n] = await sql`select status, attempt_count, error from notifications where id = ${row.id}`;
    expect(n).toMatchObject({ status: "failed", attempt_count: 5, error: UNKNOWN });
    expect((await attempts(row.id)).map((a) => [a.attempt_number, a.error.code])).toEqual([[5, "outcome_unknown"]]);
    const [ev] = await sql`select data from events where type = 'notification.failed' and data -> 'notification' ->> 'id' = ${row.id}`;
    expect(ev!.data.error).toMatchObject({ attempt: 5, will_retry: false, code: "outcome_unknown" });
  });
});

describe("suppression: status suppressed with suppressed_reason, no provider call", () => {
  let S: Awaited<ReturnType<typeof createTenant>>;
  beforeAll(async () => {
    S = await createListeningTenant();
  });

  async function expectSuppressed(row: any, reason: string) {
    const before = tw.requests.length;
    await sendAttempt(msgOf(row), fakeCtx());
    const [n] = await sql`select status, suppressed_reason from notifications where id = ${row.id}`;
    expect(n).toEqual({ status: "suppressed", suppressed_reason: reason });
    expect(tw.requests.length).toBe(before);
    expect(await sql`select 1 from notification_attempts where notification_id = ${row.id}`).toHaveLength(0);
    const d = await call("GET", `/v1/notifications/${row.id}`, { key: S.sandboxKey });
    expect(d.body.data).toMatchObject({ status: "suppressed", suppressed_reason: reason });
  }

  test("erased subscriber -> erased", async () => {
    await call("POST", "/v1/subscribers", { key: S.sandboxKey, body: { external_id: "er-1", email: "er1@example.com" } });
    const row = await accept(S.sandboxKey, { channel: "email", to: "er1@example.com", data: { subject: "s", content: "c" } });
    expect((await call("DELETE", "/v1/subscribers/er-1", { key: S.sandboxKey })).status).toBe(204);
    await expectSuppressed(row, "erased");
  });

  test("preference off for the channel (category all) -> preference_disabled", async () => {
    await call("POST", "/v1/subscribers", { key: S.sandboxKey, body: { external_id: "pf-1", phone: "+5511977770001" } });
    const p = await call("PUT", "/v1/subscribers/pf-1/preferences", { key: S.sandboxKey, body: { preferences: [{ category: "all", channel: "sms", enabled: false }] } });
    expect(p.status).toBe(200);
    const row = await accept(S.sandboxKey, { channel: "sms", to: "+5511977770001", data: { content: "x" } });
    await expectSuppressed(row, "preference_disabled");
  });

  test("preference off for the notification's category only", async () => {
    await call("POST", "/v1/subscribers", { key: S.sandboxKey, body: { external_id: "pf-2", phone: "+5511977770002" } });
    await call("PUT", "/v1/subscribers/pf-2/preferences", { key: S.sandboxKey, body: { preferences: [{ category: "marketing", channel: "sms", enabled: false }] } });
    const promo = await accept(S.sandboxKey, { channel: "sms", to: "+5511977770002", category: "marketing", data: { content: "x" } });
    await expectSuppressed(promo, "preference_disabled");
    const other = await accept(S.sandboxKey, { channel: "sms", to: "+5511977770002", category: "security", data: { content: "x" } });
    await sendAttempt(msgOf(other), fakeCtx());
    const [n] = await sql`select status from notifications where id = ${other.id}`;
    expect(n!.status).toBe("delivered");
  });

  test("unsubscribed through the one-click link -> unsubscribed", async () => {
    const s = await call("POST", "/v1/subscribers", { key: S.sandboxKey, body: { external_id: "un-1", email: "un1@example.com" } });
    const token = createUnsubscribeToken({ tenantId: S.tenant.id, environment: "sandbox", subscriberId: s.body.data.id, channel: "email" });
    expect((await call("POST", `/unsubscribe/${token}`, { rawBody: "List-Unsubscribe=One-Click", headers: { "content-type": "application/x-www-form-urlencoded" } })).status).toBe(200);
    const row = await accept(S.sandboxKey, { channel: "email", to: "un1@example.com", data: { subject: "s", content: "c" } });
    await expectSuppressed(row, "unsubscribed");
  });

  test("email domain blocked after acceptance -> blocked_domain", async () => {
    const row = await accept(S.sandboxKey, { channel: "email", to: `x@${blocked}`, data: { subject: "s", content: "c" } });
    await blockDomain(blocked);
    await expectSuppressed(row, "blocked_domain");
  });

  test("the sender's batched check answers exactly as domain/subscribers/erasure.ts suppressionFor does", async () => {
    const rows = await sql`select tenant_id, environment, channel, recipient, subscriber_id, category from notifications where tenant_id = ${S.tenant.id}`;
    const extra = [
      { tenant_id: S.tenant.id, environment: "sandbox", channel: "sms", recipient: "+5511900000000", subscriber_id: null, category: null },
      { tenant_id: S.tenant.id, environment: "sandbox", channel: "email", recipient: "UN1@example.com", subscriber_id: null, category: "x" },
      { tenant_id: S.tenant.id, environment: "production", channel: "sms", recipient: "+5511977770001", subscriber_id: null, category: null },
    ];
    const all = [...rows, ...extra] as any[];
    expect(all.length).toBeGreaterThan(5);
    const batched = await Promise.all(all.map((r) => checkSuppression(r)));
    const single = await Promise.all(all.map((r) => suppressionReason(r)));
    expect(batched.map((b) => b.reason)).toEqual(single);
  });

  test("suppressed notifications count in the rollups", async () => {
    const o = await call("GET", "/v1/analytics/overview", { key: S.sandboxKey });
    expect(o.body.data.suppressed).toBe(5);
  });
});

describe("outcome writes are atomic", () => {
  test("a batch whose write fails leaves status, attempts and events unchanged and reports the cause", async () => {
    const A = await createListeningTenant();
    const row = await accept(A.sandboxKey, { channel: "sms", to: "+5511912345401", data: { content: "x" } });
    await sql`update notifications set attempt_count = 1 where id = ${row.id}`;
    const [n] = await sql`select * from notifications where id = ${row.id}`;
    const err = await recordOutcome({
      n: { ...n, tenant_id: "not-a-uuid" } as any, // makes one statement of the pipelined transaction fail
      attempt: 1,
      provider: "sandbox",
      status: "delivered",
      providerMessageId: "x",
      attemptRow: { status: "success", response: {}, error: null, durationMs: 1 },
    }).then(() => null, (e: Error) => e);
    expect(err?.message).toContain("uuid");
    const [after] = await sql`select status from notifications where id = ${row.id}`;
    expect(after!.status).toBe("pending");
    expect(await sql`select 1 from notification_attempts where notification_id = ${row.id}`).toHaveLength(0);
    expect(await sql`select 1 from events where type <> 'notification.created' and data -> 'notification' ->> 'id' = ${row.id}`).toHaveLength(0);
  });
});

describe("configuration changes after acceptance", () => {
  test("production channel removed before delivery: failed with channel_not_configured, no attempt", async () => {
    const C = await createListeningTenant();
    await call("POST", "/v1/channels", { key: C.secretKey, body: { channel: "sms", provider: "sandbox" } });
    const row = await accept(C.secretKey, { channel: "sms", to: "+5511912345301", data: { content: "x" } });
    expect((await call("DELETE", "/v1/channels/sms", { key: C.secretKey })).status).toBe(204);
    await sendAttempt(msgOf(row), fakeCtx());
    const [n] = await sql`select status, error from notifications where id = ${row.id}`;
    expect(n!.status).toBe("failed");
    expect(n!.error.code).toBe("channel_not_configured");
    expect(await sql`select 1 from notification_attempts where notification_id = ${row.id}`).toHaveLength(0);
  });

  test("an inactive production channel counts as not configured (422 at accept)", async () => {
    const C = await createListeningTenant();
    await call("POST", "/v1/channels", { key: C.secretKey, body: { channel: "sms", provider: "sandbox", active: false } });
    const r = await call("POST", "/v1/notifications", { key: C.secretKey, body: { channel: "sms", to: "+5511912345302", data: { content: "x" } } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("channel_not_configured");
  });
});

describe("provider rate limit per (tenant, environment, provider)", () => {
  test("over settings.rate_limit_per_second: rescheduled (unscaled), not claimed, no provider call", async () => {
    const R = await createListeningTenant();
    await call("POST", "/v1/channels", {
      key: R.secretKey,
      body: { channel: "sms", provider: "twilio", credentials: { account_sid: SID, auth_token: "tok" }, settings: { from: "+14155550100", base_url: tw.url, rate_limit_per_second: 1 } },
    });
    tw.reset();
    const a = await accept(R.secretKey, { channel: "sms", to: "+5511912345101", data: { content: "a" } });
    const b = await accept(R.secretKey, { channel: "sms", to: "+5511912345102", data: { content: "b" } });
    await sendAttempt(msgOf(a), fakeCtx());
    const ctx = fakeCtx();
    await sendAttempt(msgOf(b), ctx);
    expect(tw.requests.filter((r) => r.kind === "send")).toHaveLength(1);
    expect(ctx.scheduled).toHaveLength(1);
    expect(ctx.scheduled[0]!.opts).toEqual({ unscaled: true });
    expect(ctx.scheduled[0]!.delayMs).toBeGreaterThan(0);
    expect(ctx.scheduled[0]!.delayMs).toBeLessThanOrEqual(1000);
    const [n] = await sql`select status, attempt_count from notifications where id = ${b.id}`;
    expect(n).toMatchObject({ status: "pending", attempt_count: 0 });
  });
});

describe("events and rollups", () => {
  test("notification.created {notification, subscriber} at accept; sent + delivered on delivery; counters follow", async () => {
    const E = await createListeningTenant();
    const s = await call("POST", "/v1/subscribers", { key: E.sandboxKey, body: { external_id: "ev-1" } });
    const row = await accept(E.sandboxKey, { channel: "in_app", to: "ev-1", data: { title: "T", body: "B" } });
    await sendAttempt(msgOf(row), fakeCtx());
    const events = await sql`select type, data from events where tenant_id = ${E.tenant.id} and environment = 'sandbox' and type like 'notification.%' order by created_at, id`;
    expect(events.map((e) => e.type)).toEqual(["notification.created", "notification.sent", "notification.delivered"]);
    expect(events[0]!.data).toMatchObject({
      notification: { id: row.id, status: "pending", channel: "in_app", to: "ev-1", external_id: "ev-1" },
      subscriber: { id: s.body.data.id, external_id: "ev-1" },
    });
    expect(events[1]!.data).toMatchObject({ provider: "inbox" });
    expect(events[2]!.data).toMatchObject({ notification: { id: row.id, status: "delivered" }, delivery: { provider: "inbox" } });
    expect(events[2]!.data.delivered_at).toBeTruthy();
    const o = await call("GET", "/v1/analytics/overview", { key: E.sandboxKey });
    expect(o.body.data).toMatchObject({ total: 1, sent: 1, delivered: 1, failed: 0, bounced: 0, suppressed: 0, delivery_rate: 1 });
  });
});

describe("reconciler", () => {
  test("re-enqueues pending notifications older than 60 s without a future attempt; fails exhausted ones", async () => {
    const Q = await createListeningTenant();
    const lost = await accept(Q.sandboxKey, { channel: "sms", to: "+5511912345201", data: { content: "lost" } });
    const waiting = await accept(Q.sandboxKey, { channel: "sms", to: "+5511912345202", data: { content: "waiting" } });
    const fresh = await accept(Q.sandboxKey, { channel: "sms", to: "+5511912345203", data: { content: "fresh" } });
    const exhausted = await accept(Q.sandboxKey, { channel: "sms", to: "+5511912345204", data: { content: "exhausted" } });
    await sql`update notifications set updated_at = now() - interval '5 minutes', attempt_count = 1 where id = ${lost.id}`;
    await sql`update notifications set updated_at = now() - interval '5 minutes', attempt_count = 2, next_attempt_at = now() + interval '10 minutes' where id = ${waiting.id}`;
    await sql`update notifications set updated_at = now() - interval '5 minutes', attempt_count = 5 where id = ${exhausted.id}`;
    const sent: any[] = [];
    const r = await reconcileOnce({ tenantId: Q.tenant.id, send: async (rows) => void sent.push(...rows) });
    const mine = sent.filter((s) => [lost.id, waiting.id, fresh.id, exhausted.id].includes(s.id));
    expect(mine.map((s) => [s.id, s.attempt_count])).toEqual([[lost.id, 1]]);
    expect(r.requeued).toBeGreaterThanOrEqual(1);
    const [ex] = await sql`select status, error from notifications where id = ${exhausted.id}`;
    expect(ex!.status).toBe("failed");
    expect(ex!.error.code).toBe("outcome_unknown");
    // both lost attempts are in the history (their senders died before writing an outcome)
    const history = await sql`select notification_id, attempt_number, error ->> 'code' as code from notification_attempts where notification_id = any(${[lost.id, exhausted.id]}::uuid[]) order by attempt_number`;
    expect(history.map((h) => [h.notification_id, h.attempt_number, h.code])).toEqual([[lost.id, 1, "outcome_unknown"], [exhausted.id, 5, "outcome_unknown"]]);
    const failedEvents = await sql`select data from events where type = 'notification.failed' and data -> 'notification' ->> 'id' = ${exhausted.id}`;
    expect(failedEvents).toHaveLength(1);
    // the re-enqueued message claims attempt 2 and delivers
    await sendAttempt(msgOf(lost, 2), fakeCtx());
    const [l] = await sql`select status, attempt_count from notifications where id = ${lost.id}`;
    expect(l).toMatchObject({ status: "delivered", attempt_count: 2 });
  });
});
