// Webhook delivery end to end on real PostgreSQL and Redis (SPEC "Outbound webhook delivery",
// DESIGN.md 6): events written by domain/events/outbox.ts reach local receivers through the outbox, the
// relay and the webhook-dispatcher; schedule, deactivation, isolation, SSRF at delivery, retry, replay.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { verify as octokitVerify } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";
import { config } from "../../config";
import { postToReceiver } from "../../domain/webhooks/transport";
import { WEBHOOK_RETRY_SCHEDULE_MS } from "../../domain/webhooks/retry-schedule";
import { runtimeKeys } from "../../runtime";
import { webhookDispatcherAddress, retryTimerId } from "../../domain/webhooks/webhook-dispatcher-mail";
import { sql } from "../../store/db";
import { metricsRegistry } from "../../basics/metrics";
import { call, createTenant } from "../support/fixtures";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { sleep } from "../support/runtime-redis";
import { hang, startReceiver, type Receiver } from "../support/webhook-receiver";
import { cleanupTenants, createWebhook, deliveriesOf, emit, startWebhookHost, TEST_TIME_SCALE, until } from "./webhook-support";

type T = Awaited<ReturnType<typeof createTenant>>;
let T1: T;
let T2: T;
let host: Awaited<ReturnType<typeof startWebhookHost>>;
let dns: FakeDns;
const receivers: Receiver[] = [];

function receiver(respond?: Parameters<typeof startReceiver>[0]) {
  const r = startReceiver(respond);
  receivers.push(r);
  return r;
}

beforeAll(async () => {
  T1 = await createTenant();
  T2 = await createTenant();
  dns = await startFakeDns();
  process.env.DNS_SERVERS = dns.server;
  host = await startWebhookHost();
});

afterAll(async () => {
  // deleted webhooks make whatever is still scheduled a no-op before the host stops
  await cleanupTenants([T1.tenant.id, T2.tenant.id]);
  for (const r of receivers) await r.stop();
  await host.stop();
  delete process.env.DNS_SERVERS;
  await dns.stop();
});

describe("from the outbox to receivers", () => {
  test("each event reaches every active webhook of its tenant and environment subscribed to its type, signed", async () => {
    const a = receiver();
    const b = receiver();
    const c = receiver();
    const d = receiver();
    const A = await createWebhook(T1.secretKey, a.url, ["notification.delivered", "notification.sent"]);
    const B = await createWebhook(T1.secretKey, b.url, ["workflow.completed"]);
    const C = await createWebhook(T1.sandboxKey, c.url, ["notification.delivered"]);
    const D = await createWebhook(T2.secretKey, d.url, ["notification.delivered"]);
    const delivered = await emit(T1.tenant.id, "production", "notification.delivered", 3, (i) => ({ notification: { id: `n${i}`, status: "delivered", channel: "email" } }));
    const workflow = await emit(T1.tenant.id, "production", "workflow.completed", 1, () => ({ run_id: "r1", status: "completed" }));
    const sandbox = await emit(T1.tenant.id, "sandbox", "notification.delivered", 2);
    const other = await emit(T2.tenant.id, "production", "notification.delivered", 1);
    await emit(T1.tenant.id, "production", "inbox.notification.read", 1); // nobody subscribes

    await until(() => a.received.length >= 3 && b.received.length >= 1 && c.received.length >= 2 && d.received.length >= 1);
    await sleep(200); // nothing else arrives
    expect(a.ids().sort()).toEqual([...delivered].sort());
    expect(b.ids()).toEqual(workflow);
    expect(c.ids().sort()).toEqual([...sandbox].sort());
    expect(d.ids()).toEqual(other);

    const [ev] = await sql`select id, created_at, data from events where id = ${delivered[0]!}`;
    const got = a.received.find((x) => x.json.id === delivered[0])!;
    expect(Object.keys(got.json)).toEqual(["id", "type", "created_at", "data"]);
    expect(got.json).toEqual({ id: ev!.id, type: "notification.delivered", created_at: ev!.created_at.toISOString(), data: ev!.data });
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["user-agent"]).toMatch(/^NMS-Webhooks\/\d/);
    expect(got.headers["webhook-id"]).toBe(got.json.id);
    for (const [w, r] of [[A, a], [B, b], [C, c], [D, d]] as const) {
      for (const x of r.received) {
        expect(await octokitVerify(w.signing_secret, x.body, x.headers["x-service-signature"]!)).toBe(true);
        expect((new Webhook(w.signing_secret).verify(x.body, x.headers) as any).id).toBe(x.json.id);
      }
    }
    // each record is written once its receiver has answered: the last ones may still be on their way in
    await until(async () => (await deliveriesOf(A.id)).length >= 3);
    const recs = await deliveriesOf(A.id);
    expect(recs).toHaveLength(3);
    for (const r of recs) expect(r).toMatchObject({ status: "success", attempt: 1, response_status: 200, response_body: "ok", kind: "auto", next_retry_at: null, error: null });
  });

  test("a message relayed twice (a relay killed between its XADD and its COMMIT) sends the attempt once", async () => {
    const r = receiver(async () => {
      await sleep(50);
      return new Response("ok");
    });
    const W = await createWebhook(T2.secretKey, r.url, ["notification.sent"]);
    await sql`update webhooks set active = false where id = ${W.id}`; // no fan-out: the test writes the outbox itself
    const [id] = await emit(T2.tenant.id, "production", "notification.sent", 1);
    await sql`update webhooks set active = true where id = ${W.id}`;
    await sql`insert into webhook_outbox (webhook_id, event_id) values (${W.id}, ${id!}), (${W.id}, ${id!}), (${W.id}, ${id!})`;
    await until(async () => (await deliveriesOf(W.id)).length >= 1);
    await sleep(300);
    expect(r.received).toHaveLength(1);
    expect(await deliveriesOf(W.id)).toHaveLength(1);
  });
});

describe("retries", () => {
  test("a receiver answering 500 three times then 200 yields 4 delivery records on schedule (and 3 retrying, 1 delivered in /metrics)", async () => {
    const counted = async (outcome: string) =>
      (await metricsRegistry.getSingleMetric("nms_webhook_deliveries_total")!.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
    const before = { retrying: await counted("retrying"), delivered: await counted("delivered") };
    const r = receiver((_, n) => new Response(n <= 3 ? "boom" : "fine", { status: n <= 3 ? 500 : 200 }));
    const W = await createWebhook(T1.secretKey, r.url, ["notification.failed"]);
    const [id] = await emit(T1.tenant.id, "production", "notification.failed", 1);
    const recs = await until(async () => {
      const x = await deliveriesOf(W.id);
      return x.length >= 4 ? x : null;
    });
    expect(recs!.map((x) => [x.attempt, x.status, x.response_status])).toEqual([
      [1, "failed", 500],
      [2, "failed", 500],
      [3, "failed", 500],
      [4, "success", 200],
    ]);
    for (const x of recs!) expect(x.event_id).toBe(id!);
    expect(recs![0]!.error).toEqual({ code: "http_500", message: "the receiver answered 500" });
    for (let i = 0; i < 3; i++) {
      const wait = WEBHOOK_RETRY_SCHEDULE_MS[i + 1]! * TEST_TIME_SCALE;
      // next_retry_at is the scheduled time (counted from the answer, so from after the receiver saw the
      // request; the record's created_at is a later write, which a loaded machine can delay by more than
      // any fixed margin), and the next attempt came no sooner than it
      expect(recs![i]!.next_retry_at.getTime() - r.received[i]!.at).toBeGreaterThanOrEqual(wait - 5);
      expect(r.received[i + 1]!.at - r.received[i]!.at).toBeGreaterThanOrEqual(wait - 5);
    }
    expect(recs![3]!.next_retry_at).toBeNull();
    expect(r.received.map((x) => x.json.id)).toEqual([id, id, id, id]); // duplicates carry the same id
    // the dispatcher runs in this process (startWebhookHost): its attempts are in this registry
    expect((await counted("retrying")) - before.retrying).toBeGreaterThanOrEqual(3);
    expect((await counted("delivered")) - before.delivered).toBeGreaterThanOrEqual(1);
  }, 15_000);

  test("retries stop after the last (fifth) attempt", async () => {
    const r = receiver(() => new Response("down", { status: 503 }));
    const W = await createWebhook(T1.secretKey, r.url, ["notification.bounced"]);
    await emit(T1.tenant.id, "production", "notification.bounced", 1);
    const recs = await until(async () => {
      const x = await deliveriesOf(W.id);
      return x.length >= 5 ? x : null;
    });
    expect(recs!.map((x) => x.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(recs!.every((x) => x.status === "failed")).toBe(true);
    expect(recs![4]!.next_retry_at).toBeNull();
    // no sixth attempt is scheduled, and none comes
    const keys = runtimeKeys(config.redisPrefix);
    const p = host.runtime.partitionFor(webhookDispatcherAddress, { v: 1, type: "attempt", webhookId: W.id, eventId: recs![0]!.event_id, attempt: 6 });
    expect(await host.runtime.redis.zscore(keys.timers("webhook-dispatcher", p), retryTimerId(W.id, recs![0]!.event_id))).toBeNull();
    await sleep(300);
    expect(r.received).toHaveLength(5);
    expect(await deliveriesOf(W.id)).toHaveLength(5);
  }, 15_000);

  test("a 429 or 503 with Retry-After is honoured within the schedule's bounds", async () => {
    const r = receiver((_, n) => (n === 1 ? new Response("slow down", { status: 429, headers: { "retry-after": "1" } }) : new Response("ok")));
    const W = await createWebhook(T1.secretKey, r.url, ["notification.opened"]);
    await emit(T1.tenant.id, "production", "notification.opened", 1);
    await until(() => r.received.length >= 2, 5000);
    const recs = await until(async () => {
      const x = await deliveriesOf(W.id);
      return x.length >= 2 ? x : null;
    });
    // the schedule says 30 ms at this TIME_SCALE; the receiver asked for 1 s
    expect(recs![0]!.next_retry_at.getTime() - recs![0]!.created_at.getTime()).toBeGreaterThanOrEqual(950);
    expect(r.received[1]!.at - r.received[0]!.at).toBeGreaterThanOrEqual(950);
    expect(recs![1]!.status).toBe("success");
  }, 15_000);

  test("PUT active false stops deliveries, scheduled retries too; active true resumes", async () => {
    // the first answer asks for 2 s, which leaves time to deactivate before the retry is due
    const r = receiver((_, n) => (n === 1 ? new Response("later", { status: 503, headers: { "retry-after": "2" } }) : new Response("ok")));
    const W = await createWebhook(T2.secretKey, r.url, ["notification.clicked"]);
    await emit(T2.tenant.id, "production", "notification.clicked", 1);
    await until(async () => (await deliveriesOf(W.id)).length >= 1);
    const off = await call("PUT", `/v1/webhooks/${W.id}`, { key: T2.secretKey, body: { active: false } });
    expect(off.body.data.active).toBe(false);
    await emit(T2.tenant.id, "production", "notification.clicked", 2); // while inactive
    await sleep(2500); // the retry came due meanwhile
    expect(r.received).toHaveLength(1);
    expect(await deliveriesOf(W.id)).toHaveLength(1);

    await call("PUT", `/v1/webhooks/${W.id}`, { key: T2.secretKey, body: { active: true } });
    const [fresh] = await emit(T2.tenant.id, "production", "notification.clicked", 1);
    await until(() => r.received.some((x) => x.json.id === fresh));
    expect(r.received.map((x) => x.json.id).slice(1)).toEqual([fresh]);
  }, 15_000);
});

describe("SSRF at delivery time", () => {
  test("redirects are not followed: a redirect to loopback never reaches its target", async () => {
    const target = receiver();
    const r = receiver(() => new Response(null, { status: 302, headers: { location: target.url } }));
    const W = await createWebhook(T1.secretKey, r.url, ["notification.complained"]);
    await emit(T1.tenant.id, "production", "notification.complained", 1);
    const recs = await until(async () => {
      const x = await deliveriesOf(W.id);
      return x.length >= 1 ? x : null;
    });
    expect(recs![0]!.status).toBe("failed");
    expect(recs![0]!.response_status).toBe(302);
    expect(recs![0]!.error.code).toBe("redirect_not_followed");
    await sleep(100);
    expect(target.received).toHaveLength(0);
  });

  test("a name that resolved to a public address at creation and to loopback at delivery is refused, after resolution", async () => {
    const r = receiver();
    dns.setAddresses("flip.test", { A: ["93.184.216.34"] });
    (config as any).webhookAllowPrivate = false;
    let W: { id: string };
    try {
      W = await createWebhook(T2.secretKey, `http://flip.test:${r.port}/hook`, ["inbox.notification.received"]);
      dns.setAddresses("flip.test", { A: ["127.0.0.1"] });
      await emit(T2.tenant.id, "production", "inbox.notification.received", 1);
      const recs = await until(async () => {
        const x = await deliveriesOf(W.id);
        return x.length >= 1 ? x : null;
      });
      expect(recs![0]!.status).toBe("failed");
      expect(recs![0]!.error.code).toBe("address_not_allowed");
      expect(recs![0]!.error.message).toContain("127.0.0.1");
      expect(recs![0]!.response_status).toBeNull();
      expect(r.received).toHaveLength(0);
    } finally {
      (config as any).webhookAllowPrivate = true;
    }
    // allowed (WEBHOOK_ALLOW_PRIVATE): the connection goes to the resolved address, the name stays in Host
    await call("PUT", `/v1/webhooks/${W!.id}`, { key: T2.secretKey, body: { url: `http://flip.test:${r.port}/hook2` } });
    await emit(T2.tenant.id, "production", "inbox.notification.received", 1);
    await until(() => r.received.length >= 1);
    expect(r.received[0]!.headers.host).toBe(`flip.test:${r.port}`);
  });

  test("https: the connection goes to the checked address with the URL's name as TLS server name and Host", async () => {
    const dir = join(import.meta.dir, "..", "support", "tls");
    const cert = readFileSync(join(dir, "receiver.test.pem"), "utf8");
    const key = readFileSync(join(dir, "receiver.test.key"), "utf8");
    const seen: string[] = [];
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { cert, key }, fetch: (req) => (seen.push(req.headers.get("host")!), new Response("tls ok")) });
    try {
      dns.setAddresses("receiver.test", { A: ["127.0.0.1"] });
      dns.setAddresses("impostor.test", { A: ["127.0.0.1"] });
      const ok = await postToReceiver(`https://receiver.test:${server.port}/x`, "{}", { "content-type": "application/json" }, { allowPrivate: true, tls: { ca: cert } });
      expect(ok).toMatchObject({ ok: true, status: 200, body: "tls ok" });
      expect(seen).toEqual([`receiver.test:${server.port}`]);
      // the same address under a name the certificate does not carry: refused by the TLS check
      const bad = await postToReceiver(`https://impostor.test:${server.port}/x`, "{}", {}, { allowPrivate: true, tls: { ca: cert } });
      expect(bad.ok).toBe(false);
      expect(bad.error!.code).toBe("tls_error");
      expect(seen).toHaveLength(1);
      // and the address check comes first
      const refused = await postToReceiver(`https://receiver.test:${server.port}/x`, "{}", {}, { allowPrivate: false, tls: { ca: cert } });
      expect(refused.error!.code).toBe("address_not_allowed");
      const timeout = await postToReceiver(`http://127.0.0.1:${receiver(hang).port}/`, "{}", {}, { allowPrivate: true, timeoutMs: 200 });
      expect(timeout.error).toEqual({ code: "timeout", message: "no answer within 200 ms" });
    } finally {
      server.stop(true);
    }
  });
});

describe("isolation of receivers", () => {
  test("one hanging receiver never delays another webhook's deliveries (it holds at most its own slots)", async () => {
    const slow = receiver(hang);
    const fast = receiver();
    const H = await createWebhook(T1.secretKey, slow.url, ["workflow.step.failed"]);
    const G = await createWebhook(T2.secretKey, fast.url, ["workflow.step.failed"]);
    await emit(T1.tenant.id, "production", "workflow.step.failed", 60);
    await until(() => slow.received.length >= config.webhookConcurrency);
    const sent = await emit(T2.tenant.id, "production", "workflow.step.failed", 40);
    const started = Date.now();
    await until(() => fast.received.length >= 40, 10_000);
    expect(fast.ids().sort()).toEqual([...sent].sort());
    expect(Date.now() - started).toBeLessThan(5000); // not 30 s behind the hanging receiver
    // a webhook's concurrency is bounded: the hanging one holds exactly its share
    expect(slow.received).toHaveLength(config.webhookConcurrency);
    await call("DELETE", `/v1/webhooks/${H.id}`, { key: T1.secretKey });
    await slow.stop(); // its hanging requests fail now; the deleted webhook gets nothing more
    await call("DELETE", `/v1/webhooks/${G.id}`, { key: T2.secretKey });
  });
});

describe("retry, replay and auto-disable", () => {
  test("POST .../deliveries/:id/retry re-sends one event now and replaces its remaining automatic retries", async () => {
    (config as any).timeScale = 0.01; // the automatic retry is 3 s away
    try {
      let status = 500;
      const r = receiver(() => new Response("x", { status }));
      const W = await createWebhook(T1.secretKey, r.url, ["workflow.triggered"]);
      const [id] = await emit(T1.tenant.id, "production", "workflow.triggered", 1);
      const first = await until(async () => (await deliveriesOf(W.id))[0]);
      expect(first!.status).toBe("failed");
      const keys = runtimeKeys(config.redisPrefix);
      const p = host.runtime.partitionFor(webhookDispatcherAddress, { v: 1, type: "attempt", webhookId: W.id, eventId: id!, attempt: 2 });
      expect(await host.runtime.redis.zscore(keys.timers("webhook-dispatcher", p), retryTimerId(W.id, id!))).not.toBeNull();

      status = 200;
      const res = await call("POST", `/v1/webhooks/${W.id}/deliveries/${first!.id}/retry`, { key: T1.secretKey });
      expect(res.status).toBe(202);
      expect(res.body.data).toMatchObject({ webhook_id: W.id, event_id: id, attempt: 2, status: "pending" });
      await until(() => r.received.length >= 2);
      const recs = await until(async () => {
        const x = await deliveriesOf(W.id);
        return x.length >= 2 && x[1]!.status !== "pending" ? x : null;
      });
      expect(recs!.map((x) => [x.attempt, x.status, x.kind])).toEqual([
        [1, "failed", "auto"],
        [2, "success", "manual"],
      ]);
      expect(recs![1]!.id).toBe(res.body.data.id);
      // the automatic attempt 2 is gone, and would be dropped if it had already left its timer
      expect(await host.runtime.redis.zscore(keys.timers("webhook-dispatcher", p), retryTimerId(W.id, id!))).toBeNull();
      await host.runtime.send(webhookDispatcherAddress, { v: 1, type: "attempt", webhookId: W.id, eventId: id!, attempt: 2 });
      await sleep(300);
      expect(r.received).toHaveLength(2);
      const [audit] = await sql`select metadata from audit_logs where resource_id = ${W.id} and action = 'webhook.delivery_retried'`;
      expect(audit!.metadata).toMatchObject({ delivery_id: first!.id, event_id: id, attempt: 2 });
      expect((await call("POST", `/v1/webhooks/${W.id}/deliveries/${crypto.randomUUID()}/retry`, { key: T1.secretKey })).status).toBe(404);
    } finally {
      (config as any).timeScale = TEST_TIME_SCALE;
    }
  });

  test("POST .../replay re-sends every event of the window the webhook has not acknowledged, of the types asked", async () => {
    (config as any).timeScale = 0.01;
    try {
      let status = 500;
      const r = receiver(() => new Response("x", { status }));
      const W = await createWebhook(T2.secretKey, r.url, ["workflow.completed", "workflow.step.completed"]);
      const since = new Date(Date.now() - 1000).toISOString();
      const failed = await emit(T2.tenant.id, "production", "workflow.completed", 3);
      const other = await emit(T2.tenant.id, "production", "workflow.step.completed", 1);
      await until(async () => (await deliveriesOf(W.id)).length >= 4);
      status = 200;
      const res = await call("POST", `/v1/webhooks/${W.id}/replay`, { key: T2.secretKey, body: { since, events: ["workflow.completed"] } });
      expect(res.status).toBe(202);
      expect(res.body.data).toMatchObject({ queued: 3, truncated: false });
      await until(() => r.received.length >= 7);
      await sleep(200);
      expect(r.received.slice(4).map((x) => x.json.id).sort()).toEqual([...failed].sort());
      expect(r.received.filter((x) => x.json.id === other[0])).toHaveLength(1);
      // acknowledged now: nothing left to replay of that type
      const again = await call("POST", `/v1/webhooks/${W.id}/replay`, { key: T2.secretKey, body: { since, events: ["workflow.completed"] } });
      expect(again.body.data.queued).toBe(0);
      const bad = await call("POST", `/v1/webhooks/${W.id}/replay`, { key: T2.secretKey, body: { since, events: ["notification.sent"] } });
      expect(bad.status).toBe(422);
      const [audit] = await sql`select actor_type, metadata from audit_logs where resource_id = ${W.id} and action = 'webhook.replayed' order by inserted_at limit 1`;
      expect(audit!.metadata).toMatchObject({ queued: 3, events: ["workflow.completed"] });
      await call("PUT", `/v1/webhooks/${W.id}`, { key: T2.secretKey, body: { active: false } });
      const inactive = await call("POST", `/v1/webhooks/${W.id}/replay`, { key: T2.secretKey, body: { since } });
      expect(inactive.status).toBe(409);
      expect(inactive.body.error.code).toBe("webhook_inactive");
    } finally {
      (config as any).timeScale = TEST_TIME_SCALE;
    }
  });

  test("a webhook whose every delivery failed for the auto-disable window is deactivated, audited by system, shown on GET", async () => {
    const r = receiver(() => new Response("no", { status: 500 }));
    const W = await createWebhook(T1.secretKey, r.url, ["workflow.step.completed"]);
    // its failing streak began six days ago (the window is five)
    await sql`update webhooks set failing_since = now() - interval '6 days' where id = ${W.id}`;
    await emit(T1.tenant.id, "production", "workflow.step.completed", 1);
    const got = await until(async () => {
      const x = await call("GET", `/v1/webhooks/${W.id}`, { key: T1.secretKey });
      return x.body.data.active === false ? x : null;
    });
    expect(got!.body.data.disabled_reason).toContain("every delivery failed");
    expect(got!.body.data.disabled_at).not.toBeNull();
    const [audit] = await sql`select actor_type, actor_id, ip_address, metadata from audit_logs where resource_id = ${W.id} and action = 'webhook.updated'`;
    expect(audit).toMatchObject({ actor_type: "system", actor_id: null, ip_address: null });
    expect(audit!.metadata).toMatchObject({ url: r.url, events: ["workflow.step.completed"], active: false });
    await sleep(WEBHOOK_RETRY_SCHEDULE_MS[1]! * TEST_TIME_SCALE + 300);
    expect(r.received).toHaveLength(1); // its scheduled retry was dropped

    // a success ends a streak: no disable for a webhook that recovered
    const ok = receiver();
    const V = await createWebhook(T1.secretKey, ok.url, ["workflow.step.completed"]);
    await sql`update webhooks set failing_since = now() - interval '1 day' where id = ${V.id}`;
    await emit(T1.tenant.id, "production", "workflow.step.completed", 1);
    await until(async () => (await deliveriesOf(V.id)).length >= 1);
    const [row] = await sql`select active, failing_since from webhooks where id = ${V.id}`;
    expect(row).toEqual({ active: true, failing_since: null });
  });
});
