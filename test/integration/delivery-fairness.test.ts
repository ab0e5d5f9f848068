// QA (noisy neighbour): one tenant's slow provider must not take every runtime slot of a sender
// process. A host with few slots, a tenant whose provider hangs, and a second tenant that must still get through.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { channelSender } from "../../actors/channel-sender";
import { config } from "../../config";
import { defineActor, type Host } from "../../runtime";
import { createRuntime } from "../../runtime/runtime";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import * as fakeTwilio from "../support/fake-twilio";
import { connect, deletePrefix, sleep, waitFor } from "../support/runtime-redis";

const SID = "AC" + "0123456789abcdef".repeat(2);
const SHARE = 3;
let tw: fakeTwilio.FakeTwilio;
let stopHost: (() => Promise<void>) | null = null;

// Each notification must get a lane of its own: two on one lane run one after the other, so the
// second waits behind the first's hanging call, in its lane and not for a slot, and the counts
// below never come (with the default 256 lanes, 5 notifications share one in ~4% of runs). The
// accept path reads SENDER_SHARDS through config.senderShards per message (domain/delivery/channel-sender-mail.ts).
const savedShards = config.senderShards;

beforeAll(async () => {
  tw = await fakeTwilio.start();
  config.senderShards = 2 ** 30;
});

async function clearStreams() {
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
}

afterEach(async () => {
  tw.always(undefined);
  tw.releaseHanging(); // so the host's graceful stop does not wait for its hanging calls
  await stopHost?.();
  stopHost = null;
  tw.reset(); // after the stop: what the stopping host still sent is not the next test's
  // what a test left unsent (its hanging tenant's backlog) must not reach the next test's host
  await clearStreams();
});

afterAll(async () => {
  config.senderShards = savedShards;
  await tw.stop();
  await clearStreams();
});

/** The channel sender with a small share, on a host of `slots` slots that counts as busy from `busy` on. */
async function senderHost(slots: number, share: number, busy: number): Promise<Host> {
  const actor = defineActor({ ...channelSender, fairness: { ...channelSender.fairness!, share, busyThreshold: busy } });
  const runtime = createRuntime({ redisUrl: config.redisUrl, prefix: config.redisPrefix, partitions: config.partitions, timeScale: 0.001 });
  const host = runtime.startHost({ actors: [actor], leaseMs: 3000, blockMs: 100, timerPollMs: 20, concurrency: slots });
  stopHost = async () => {
    await host.stop();
    await runtime.close();
  };
  await host.ready;
  return host;
}

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

test("over its share (SENDER_TENANT_CONCURRENCY) on a busy host a tenant's message waits in memory BEFORE its claim: no attempt number consumed, no timer", async () => {
  tw.always({ kind: "hang" });
  const A = await hangingTenant();
  const host = await senderHost(6, SHARE, SHARE); // busy from SHARE handlers on: 6 slots, 3 kept for others
  const ids: string[] = [];
  for (let i = 1; i <= SHARE + 1; i++) ids.push(await send(A.secretKey, `+551191234570${i}`));
  await tw.waitForRequests(SHARE, { kind: "send", timeoutMs: 10_000 });
  expect(await waitFor(() => host.stats().waiting === 1, 5000)).toBe(true);
  await sleep(200);
  const rows = await sql`select status, attempt_count from notifications where id = any(${ids}::uuid[])`;
  expect(rows.filter((r) => r.attempt_count === 1)).toHaveLength(SHARE);
  expect(rows.filter((r) => r.attempt_count === 0 && r.status === "pending")).toHaveLength(1);
  expect(tw.requests.filter((r) => r.kind === "send")).toHaveLength(SHARE);
  expect(host.stats().deferred).toBe(0);
  const r = connect();
  const timers = await r.keys(`${config.redisPrefix}:{channel-sender:*}:timers`);
  await r.quit();
  expect(timers).toHaveLength(0);
}, 20_000);

test("tenant A's provider hangs and A holds its whole share: tenant B's notification is still delivered on a host with few slots", async () => {
  tw.always({ kind: "hang" });
  const A = await hangingTenant();
  const B = await createTenant();
  // a host whose slots A alone could fill without a per-tenant share (20 A messages on ~20 lanes, 6 slots)
  await senderHost(6, SHARE, SHARE);
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
  tw.always({ kind: "hang" });
  const A = await hangingTenant();
  const host = await senderHost(6, 2, 1_000); // share 2, but the process never counts as busy
  const ids: string[] = [];
  for (let i = 1; i <= 5; i++) ids.push(await send(A.secretKey, `+551191234580${i}`));
  await tw.waitForRequests(5, { kind: "send", timeoutMs: 10_000 });
  const claimed = await sql`select attempt_count from notifications where id = any(${ids}::uuid[])`;
  expect(claimed.filter((r) => r.attempt_count === 1)).toHaveLength(5);
  expect(host.stats().waiting).toBe(0);
}, 20_000);
