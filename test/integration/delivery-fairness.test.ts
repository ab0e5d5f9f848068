// QA (noisy neighbour): one tenant's slow provider must not take every runtime slot of a sender
// process. A host with few slots, a tenant whose provider hangs, and a second tenant that must still get through.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { channelSender, handleSend, setTenantConcurrency, SENDER_TENANT_CONCURRENCY } from "../../actors/channel-sender";
import { senderMessage } from "../../schemas/messages";
import { config } from "../../config";
import { createRuntime } from "../../runtime/runtime";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import * as fakeTwilio from "../support/fake-twilio";
import { connect, deletePrefix, sleep } from "../support/runtime-redis";

const SID = "AC" + "0123456789abcdef".repeat(2);
const SHARE = 3;
let tw: fakeTwilio.FakeTwilio;
let stopHost: (() => Promise<void>) | null = null;

beforeAll(async () => {
  tw = await fakeTwilio.start();
  setTenantConcurrency(SHARE, SHARE); // busy from SHARE handlers on: 6 slots, 3 kept for others
});

afterAll(async () => {
  setTenantConcurrency(SENDER_TENANT_CONCURRENCY);
  await tw.stop(); // releases hanging calls first, so the host's graceful stop does not wait for them
  await stopHost?.();
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
});

async function hangingTenant() {
  const A = await createTenant();
  const r = await call("POST", "/v1/channels", {
    key: A.secretKey,
    body: { channel: "sms", provider: "twilio", credentials: { account_sid: SID, auth_token: "tok" }, settings: { from: "+14155550100", base_url: tw.url, rate_limit_per_second: 1000, timeout_ms: 60_000 } },
  });
  expect(r.status).toBe(201);
  return A;
}

async function send(key: string, to: string) {
  const r = await call("POST", "/v1/notifications", { key, body: { channel: "sms", to, data: { content: "x" } } });
  expect(r.status).toBe(202);
  return r.body.data.id as string;
}

test("over its share (SENDER_TENANT_CONCURRENCY) a tenant's message is rescheduled (short, unscaled) BEFORE its claim: no attempt number consumed", async () => {
  tw.reset();
  tw.always({ kind: "hang" });
  const A = await hangingTenant();
  const ids = await Promise.all([1, 2, 3, 4].map((i) => send(A.secretKey, `+551191234570${i}`)));
  const rows = await sql`select id, tenant_id, environment, channel from notifications where id = any(${ids}::uuid[])`;
  const msgs = rows.map((r) => senderMessage({ id: r.id, tenantId: r.tenant_id, environment: r.environment, channel: r.channel }, 1));
  const scheduled: { timerId: string; delayMs: number; msg: any; opts?: { unscaled?: boolean } }[] = [];
  const ctx = { deliveries: 1, schedule: async (timerId: string, delayMs: number, msg: any, opts?: { unscaled?: boolean }) => (scheduled.push({ timerId, delayMs, msg, opts }), 0) };
  const running = msgs.slice(0, SHARE).map((m) => handleSend(m, ctx)); // they hang at the provider
  await tw.waitForRequests(SHARE, { kind: "send" });
  await handleSend(msgs[SHARE]!, ctx);
  expect(scheduled).toHaveLength(1);
  expect(scheduled[0]!.msg).toMatchObject({ notificationId: msgs[SHARE]!.notificationId, attempt: 1 });
  expect(scheduled[0]!.opts).toEqual({ unscaled: true });
  expect(scheduled[0]!.delayMs).toBeGreaterThan(0);
  expect(scheduled[0]!.delayMs).toBeLessThanOrEqual(2000);
  const [over] = await sql`select status, attempt_count from notifications where id = ${msgs[SHARE]!.notificationId}`;
  expect(over).toMatchObject({ status: "pending", attempt_count: 0 });
  expect(tw.requests.filter((r) => r.kind === "send")).toHaveLength(SHARE);
  void running; // released when the fake stops (afterAll)
}, 15_000);

test("tenant A's provider hangs and A holds its whole share: tenant B's notification is still delivered on a host with few slots", async () => {
  tw.reset();
  tw.always({ kind: "hang" });
  const A = await hangingTenant();
  const B = await createTenant();
  // a host whose slots A alone could fill without a per-tenant share (20 A messages on ~20 lanes, 6 slots)
  const runtime = createRuntime({ redisUrl: config.redisUrl, prefix: config.redisPrefix, partitions: config.partitions, timeScale: 0.001 });
  const host = runtime.startHost({ actors: [channelSender], leaseMs: 3000, blockMs: 100, timerPollMs: 20, concurrency: 6 });
  stopHost = async () => {
    await host.stop();
    await runtime.close();
  };
  await host.ready;
  const aIds: string[] = [];
  for (let i = 0; i < 20; i++) aIds.push(await send(A.secretKey, `+55119123472${String(i).padStart(2, "0")}`));
  await tw.waitForRequests(SHARE, { kind: "send", timeoutMs: 10_000 });
  const bId = await send(B.sandboxKey, "+5511912347300");

  const deadline = Date.now() + 10_000;
  let b: any;
  while (Date.now() < deadline) {
    [b] = await sql`select status from notifications where id = ${bId}`;
    if (b.status !== "pending") break;
    await sleep(25);
  }
  expect(b.status).toBe("delivered");
  // ... while A's calls are still hanging: A has exactly its share claimed and nothing finished
  const a = await sql`select status, attempt_count from notifications where id = any(${aIds}::uuid[])`;
  expect(a.filter((r) => r.status !== "pending")).toHaveLength(0);
  expect(a.filter((r) => r.attempt_count === 1)).toHaveLength(SHARE);
  expect(tw.requests.filter((r) => r.kind === "send")).toHaveLength(SHARE);
}, 20_000);

test("the share is work-conserving: while the process is not busy (under SENDER_BUSY_THRESHOLD handlers) one tenant may use more than its share", async () => {
  tw.reset();
  tw.always({ kind: "hang" });
  const A = await hangingTenant();
  const ids = await Promise.all([1, 2, 3, 4, 5].map((i) => send(A.secretKey, `+551191234580${i}`)));
  const rows = await sql`select id, tenant_id, environment, channel from notifications where id = any(${ids}::uuid[])`;
  const msgs = rows.map((r) => senderMessage({ id: r.id, tenantId: r.tenant_id, environment: r.environment, channel: r.channel }, 1));
  const scheduled: string[] = [];
  const ctx = { deliveries: 1, schedule: async (timerId: string) => (scheduled.push(timerId), 0) };
  setTenantConcurrency(2, 1_000); // share 2, but the process is far from busy
  try {
    const running = msgs.map((m) => handleSend(m, ctx));
    await tw.waitForRequests(msgs.length, { kind: "send", timeoutMs: 10_000 });
    expect(scheduled).toHaveLength(0);
    const claimed = await sql`select attempt_count from notifications where id = any(${ids}::uuid[])`;
    expect(claimed.filter((r) => r.attempt_count === 1)).toHaveLength(msgs.length);
    void running; // released when the fake stops (afterAll)
  } finally {
    setTenantConcurrency(SHARE, SHARE);
  }
}, 20_000);
