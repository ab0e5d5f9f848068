// Provider callbacks end to end: messages sent through the channel sender to the Twilio and SendGrid
// fakes, which then post real signed callbacks (Twilio's HMAC-SHA1, SendGrid's ECDSA) to the public routes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { config } from "../../config";
import { sql } from "../../store/db";
import { app, call, createTenant, createListeningTenant } from "../support/fixtures";
import * as fakeSendgrid from "../support/fake-sendgrid";
import * as fakeTwilio from "../support/fake-twilio";
import { deleteTenants } from "../support/tenant-cleanup";
import { startDeliveryHost, waitForStatus } from "./delivery-support";

let delivery: Awaited<ReturnType<typeof startDeliveryHost>>;
let twA: fakeTwilio.FakeTwilio;
let twB: fakeTwilio.FakeTwilio;
let sg: fakeSendgrid.FakeSendgrid;
let A: Awaited<ReturnType<typeof createTenant>>;
let B: Awaited<ReturnType<typeof createTenant>>;
const SID = "AC" + "0123456789abcdef".repeat(2);
const TOKEN_A = `tokenA-${crypto.randomUUID()}`;
const TOKEN_B = `tokenB-${crypto.randomUUID()}`;
let smsA: string; // channel configuration ids
let smsB: string;
let emailA: string;
const inProcess = (req: Request) => app().handle(req);
const base = config.publicUrl.replace(/\/+$/, "");

async function channel(key: string, body: Record<string, unknown>): Promise<string> {
  const r = await call("POST", "/v1/channels", { key, body });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

async function send(key: string, body: Record<string, unknown>, want = ["sent"]) {
  const r = await call("POST", "/v1/notifications", { key, body });
  expect(r.status).toBe(202);
  const row = await waitForStatus(r.body.data.id, want);
  expect(want).toContain(row!.status);
  return row!;
}

const sms = (key: string) => send(key, { channel: "sms", to: "+5511912345678", data: { content: "code 1234" } });
const email = (to: string, want?: string[]) => send(A.secretKey, { channel: "email", to, data: { subject: "Hi", content: "Hello" } }, want);

async function row(id: string) {
  const [r] = await sql`select * from notifications where id = ${id}`;
  return r!;
}
async function eventTypes(id: string) {
  const rows = await sql`select type from events where data -> 'notification' ->> 'id' = ${id} order by created_at, id`;
  return rows.map((r) => r.type as string);
}
const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });

beforeAll(async () => {
  delivery = await startDeliveryHost();
  [twA, twB, sg] = await Promise.all([
    fakeTwilio.start({ accountSid: SID, authToken: TOKEN_A }),
    fakeTwilio.start({ accountSid: SID, authToken: TOKEN_B }),
    fakeSendgrid.start(),
  ]);
  [A, B] = await Promise.all([createListeningTenant(), createListeningTenant()]);
  smsA = await channel(A.secretKey, { channel: "sms", provider: "twilio", credentials: { account_sid: SID, auth_token: TOKEN_A }, settings: { from: "+14155550100", base_url: twA.url } });
  smsB = await channel(B.secretKey, { channel: "sms", provider: "twilio", credentials: { account_sid: SID, auth_token: TOKEN_B }, settings: { from: "+14155550100", base_url: twB.url } });
  emailA = await channel(A.secretKey, {
    channel: "email",
    provider: "sendgrid",
    credentials: { api_key: "SG.test" },
    settings: { from_email: "hello@acme.test", base_url: sg.url, event_webhook_public_key: sg.eventWebhookPublicKey },
  });
});

afterAll(async () => {
  await delivery.stop();
  await Promise.all([twA.stop(), twB.stop(), sg.stop()]);
  await deleteTenants([A.tenant.id, B.tenant.id]);
});

describe("Twilio status callbacks (POST /webhooks/twilio/:channel_id)", () => {
  test("every message carries StatusCallback = PUBLIC_URL/webhooks/twilio/<channel id>; delivered moves sent -> delivered once", async () => {
    const n = await sms(A.secretKey);
    const sid = n.provider_message_id as string;
    expect(twA.messages.find((m) => m.sid === sid)?.statusCallback).toBe(`${base}/webhooks/twilio/${smsA}`);

    const already = await json(await twA.sendStatus(sid, "sent", { deliver: inProcess }));
    expect(already).toEqual({ status: 200, body: { data: { received: 1, matched: 1, applied: 0, ignored: 0 } } });
    const delivered = await json(await twA.sendStatus(sid, "delivered", { deliver: inProcess }));
    expect(delivered.body.data.applied).toBe(1);
    const r = await row(n.id);
    expect(r.status).toBe("delivered");
    expect(r.delivered_at).toBeInstanceOf(Date);
    const [ev] = await sql`select data from events where type = 'notification.delivered' and data -> 'notification' ->> 'id' = ${n.id}`;
    expect(ev!.data).toMatchObject({
      notification: { id: n.id, status: "delivered", channel: "sms" },
      delivered_at: r.delivered_at.toISOString(),
      delivery: { provider: "twilio", message_id: sid },
    });
  });

  test("out of order: a late sent, an undelivered after delivered and a replayed delivered change nothing", async () => {
    const n = await sms(A.secretKey);
    const sid = n.provider_message_id as string;
    await twA.sendStatus(sid, "delivered", { deliver: inProcess });
    const before = await row(n.id);
    for (const status of ["sent", "queued", "undelivered", "delivered"]) {
      const r = await json(await twA.sendStatus(sid, status, { deliver: inProcess, errorCode: status === "undelivered" ? 30005 : undefined }));
      expect(r.status).toBe(200);
      expect(r.body.data.applied).toBe(0);
    }
    const after = await row(n.id);
    expect(after.status).toBe("delivered");
    expect(after.updated_at).toEqual(before.updated_at);
    expect(await eventTypes(n.id)).toEqual(["notification.created", "notification.sent", "notification.delivered"]);
  });

  test("undelivered: failed with Twilio's error code in error.code and notification.failed", async () => {
    const n = await sms(A.secretKey);
    await twA.sendStatus(n.provider_message_id, "undelivered", { deliver: inProcess, errorCode: 30003 });
    const d = await call("GET", `/v1/notifications/${n.id}`, { key: A.secretKey });
    expect(d.body.data.status).toBe("failed");
    expect(d.body.data.error.code).toBe("twilio_30003");
    const [ev] = await sql`select data from events where type = 'notification.failed' and data -> 'notification' ->> 'id' = ${n.id}`;
    expect(ev!.data.error).toMatchObject({ code: "twilio_30003", provider: "twilio", will_retry: false });
  });

  test("a bad or missing signature is 401 in the standard body and changes nothing", async () => {
    const n = await sms(A.secretKey);
    for (const opts of [{ authToken: "wrong-token" }, { signature: null }, { signature: "AAAA" }]) {
      const r = await json(await twA.sendStatus(n.provider_message_id, "delivered", { deliver: inProcess, ...opts }));
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_signature");
      expect(typeof r.body.error.message).toBe("string");
    }
    expect((await row(n.id)).status).toBe("sent");
  });

  test("unknown message sid -> 404 notification_not_found; unknown or malformed channel id -> 404 channel_not_found", async () => {
    const unknown = await json(await twA.sendStatus("SM" + "f".repeat(32), "delivered", { deliver: inProcess, url: `${base}/webhooks/twilio/${smsA}` }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("notification_not_found");
    for (const id of [crypto.randomUUID(), "nope", emailA]) {
      const r = await json(await twA.sendStatus("SM1", "delivered", { deliver: inProcess, url: `${base}/webhooks/twilio/${id}` }));
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("channel_not_found");
    }
  });

  test("tenant isolation: tenant A's URL and secret never reach tenant B's notification", async () => {
    const nB = await sms(B.secretKey);
    const sidB = nB.provider_message_id as string;
    // A's channel URL, A's token, B's message sid: not in A's scope
    const viaA = await json(await twA.sendStatus(sidB, "delivered", { deliver: inProcess, url: `${base}/webhooks/twilio/${smsA}` }));
    expect(viaA.status).toBe(404);
    // B's channel URL signed with A's token: refused
    const forged = await json(await twB.sendStatus(sidB, "delivered", { deliver: inProcess, authToken: TOKEN_A }));
    expect(forged.status).toBe(401);
    expect((await row(nB.id)).status).toBe("sent");
    // B's own callback works
    expect((await twB.sendStatus(sidB, "delivered", { deliver: inProcess })).status).toBe(200);
    expect((await row(nB.id)).status).toBe("delivered");
  });
});

describe("SendGrid Event Webhook (POST /webhooks/sendgrid/:channel_id)", () => {
  const url = () => `${base}/webhooks/sendgrid/${emailA}`;
  const messageIdOf = (n: Record<string, any>) => n.provider_message_id as string;

  test("delivered, open and click in one signed batch: status, timestamps, events and engagement", async () => {
    const n = await email("ana@example.com");
    const mid = messageIdOf(n);
    const now = Math.floor(Date.now() / 1000);
    const batch = [
      sg.event(mid, "click", { timestamp: now, url: "https://acme.test/offer", ip: "198.51.100.7", useragent: "Mozilla/5.0" }),
      sg.event(mid, "delivered", { timestamp: now - 2, response: "250 OK" }),
      sg.event(mid, "open", { timestamp: now - 1, ip: "198.51.100.7", useragent: "Mozilla/5.0" }),
      sg.event(mid, "deferred", { timestamp: now - 3 }),
    ];
    expect(batch[0]!.notification_id).toBe(n.id); // custom_args come back on every event
    const r = await json(await sg.postEvents(url(), batch, { deliver: inProcess }));
    expect(r).toEqual({ status: 200, body: { data: { received: 4, matched: 3, applied: 3, ignored: 1 } } });
    const after = await row(n.id);
    expect(after.status).toBe("delivered");
    expect(after.delivered_at.getTime()).toBe((now - 2) * 1000);
    const detail = await call("GET", `/v1/notifications/${n.id}`, { key: A.secretKey });
    expect(detail.body.data).toMatchObject({ opened_at: new Date((now - 1) * 1000).toISOString(), clicked_at: new Date(now * 1000).toISOString(), complained_at: null });
    expect(after.opened_at.getTime()).toBe((now - 1) * 1000);
    expect(after.clicked_at.getTime()).toBe(now * 1000);
    expect(await eventTypes(n.id)).toEqual([
      "notification.created",
      "notification.sent",
      "notification.delivered",
      "notification.opened",
      "notification.clicked",
    ]);
    const [opened] = await sql`select data from events where type = 'notification.opened' and data -> 'notification' ->> 'id' = ${n.id}`;
    expect(opened!.data).toMatchObject({ opened_at: after.opened_at.toISOString(), ip: "198.51.100.7", user_agent: "Mozilla/5.0" });
    const [clicked] = await sql`select data from events where type = 'notification.clicked' and data -> 'notification' ->> 'id' = ${n.id}`;
    expect(clicked!.data).toMatchObject({ url: "https://acme.test/offer", clicked_at: after.clicked_at.toISOString() });
    const eng = await sql`select kind, source, url, ip from notification_engagements where notification_id = ${n.id} order by created_at`;
    expect([...eng]).toEqual([
      { kind: "open", source: "sendgrid", url: null, ip: "198.51.100.7" },
      { kind: "click", source: "sendgrid", url: "https://acme.test/offer", ip: "198.51.100.7" },
    ]);

    // SendGrid redelivers the same events (same sg_event_id, newly signed): nothing new
    const again = await json(await sg.postEvents(url(), batch, { deliver: inProcess }));
    expect(again.body.data).toMatchObject({ matched: 3, applied: 0 });
    expect((await eventTypes(n.id)).length).toBe(5);
  });

  test("a replay older than 5 minutes is 400 callback_expired and changes nothing; bad signatures are 401", async () => {
    const n = await email("bruno@example.com");
    const batch = [sg.event(messageIdOf(n), "delivered")];
    const stale = await json(await sg.postEvents(url(), batch, { deliver: inProcess, timestamp: Math.floor(Date.now() / 1000) - 301 }));
    expect(stale.status).toBe(400);
    expect(stale.body.error.code).toBe("callback_expired");
    const future = await json(await sg.postEvents(url(), batch, { deliver: inProcess, timestamp: Math.floor(Date.now() / 1000) + 400 }));
    expect(future.body.error.code).toBe("callback_expired");
    const otherKey = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey;
    for (const opts of [{ privateKey: otherKey }, { signature: null }, { signature: "MEUCIQ==" }]) {
      const r = await json(await sg.postEvents(url(), batch, { deliver: inProcess, ...opts }));
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_signature");
    }
    expect((await row(n.id)).status).toBe("sent");
    expect(await eventTypes(n.id)).toEqual(["notification.created", "notification.sent"]);
  });

  test("a batch naming no message of this configuration is 404 and changes nothing", async () => {
    const r = await json(await sg.postEvents(url(), [sg.event("UnknownMessageId0000000", "delivered")], { deliver: inProcess }));
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("notification_not_found");
    const wrongBody = await json(await sg.postEvents(url(), { not: "an array" } as any, { deliver: inProcess }));
    expect(wrongBody.status).toBe(422);
  });

  test("a channel without event_webhook_public_key refuses every event (401)", async () => {
    const t = await createListeningTenant();
    try {
      const id = await channel(t.secretKey, { channel: "email", provider: "sendgrid", credentials: { api_key: "SG.x" }, settings: { from_email: "a@acme.test", base_url: sg.url } });
      const r = await json(await sg.postEvents(`${base}/webhooks/sendgrid/${id}`, [sg.event("x", "delivered")], { deliver: inProcess }));
      expect(r.status).toBe(401);
      expect(r.body.error.message).toContain("event_webhook_public_key");
    } finally {
      await deleteTenants([t.tenant.id]);
    }
  });
});

describe("the suppression list", () => {
  const address = `bounce-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const complainer = `spam-${crypto.randomUUID().slice(0, 8)}@example.com`;

  test("a hard bounce: bounced with bounce_reason, the address listed, the next send suppressed without reaching SendGrid", async () => {
    const n = await email(address);
    const r = await json(await sg.postEvents(`${base}/webhooks/sendgrid/${emailA}`, [sg.event(n.provider_message_id, "bounce", { type: "bounce", reason: "550 5.1.1 The email account does not exist" })], { deliver: inProcess }));
    expect(r.body.data.applied).toBe(1);
    expect((await row(n.id)).status).toBe("bounced");
    const [ev] = await sql`select data from events where type = 'notification.bounced' and data -> 'notification' ->> 'id' = ${n.id}`;
    expect(ev!.data.bounce_reason).toBe("550 5.1.1 The email account does not exist");

    const calls = sg.accepted.length;
    const next = await email(address.toUpperCase(), ["suppressed"]);
    expect(next.suppressed_reason).toBe("bounced");
    expect(sg.accepted.length).toBe(calls);

    const list = await call("GET", `/v1/suppressions?address=${encodeURIComponent(address.toUpperCase())}`, { key: A.secretKey });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      data: [{ address, channel: "email", reason: "bounced", notification_id: n.id, created_at: expect.any(String) }],
      meta: { cursor: null, has_more: false },
    });
  });

  test("a spam report: complained_at, notification.complained, the address listed as complained", async () => {
    const n = await email(complainer);
    await sg.postEvents(`${base}/webhooks/sendgrid/${emailA}`, [sg.event(n.provider_message_id, "spamreport")], { deliver: inProcess });
    const r = await row(n.id);
    expect(r.complained_at).toBeInstanceOf(Date);
    expect(r.status).toBe("delivered"); // a complaint proves delivery
    const [ev] = await sql`select data from events where type = 'notification.complained' and data -> 'notification' ->> 'id' = ${n.id}`;
    expect(ev!.data.complaint_type).toBe("abuse");
    const list = await call("GET", "/v1/suppressions?reason=complained", { key: A.secretKey });
    expect(list.body.data.map((s: any) => s.address)).toEqual([complainer]);
  });

  test("GET pages with a cursor, filters by reason; other tenants and environments see nothing", async () => {
    const p1 = await call("GET", "/v1/suppressions?limit=1", { key: A.secretKey });
    expect(p1.body.data).toHaveLength(1);
    expect(p1.body.meta.has_more).toBe(true);
    const p2 = await call("GET", `/v1/suppressions?limit=1&cursor=${p1.body.meta.cursor}`, { key: A.secretKey });
    expect(p2.body.data).toHaveLength(1);
    expect(p2.body.data[0].address).not.toBe(p1.body.data[0].address);
    expect((await call("GET", "/v1/suppressions?reason=bounced", { key: A.secretKey })).body.data.map((s: any) => s.address)).toEqual([address]);
    expect((await call("GET", "/v1/suppressions", { key: B.secretKey })).body.data).toEqual([]);
    expect((await call("GET", "/v1/suppressions", { key: A.sandboxKey })).body.data).toEqual([]);
    expect((await call("GET", "/v1/suppressions?reason=nope", { key: A.secretKey })).status).toBe(422);
    expect((await call("GET", "/v1/suppressions?cursor=zzz", { key: A.secretKey })).status).toBe(422);
    expect((await call("GET", "/v1/suppressions")).status).toBe(401);
  });

  test("DELETE lifts an address (audited without the address in clear); sends reach the provider again", async () => {
    expect((await call("DELETE", `/v1/suppressions/${encodeURIComponent(address)}`, { key: B.secretKey })).status).toBe(404);
    const del = await call("DELETE", `/v1/suppressions/${encodeURIComponent(address)}`, { key: A.secretKey });
    expect(del.status).toBe(204);
    const [audit] = await sql`select * from audit_logs where tenant_id = ${A.tenant.id} and action = 'suppression.removed'`;
    expect(audit).toMatchObject({ actor_type: "api_key", resource_type: "suppression" });
    expect(audit!.metadata).toMatchObject({ channel: "email", reason: "bounced", address_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(audit!.metadata)).not.toContain(address);
    const again = await call("DELETE", `/v1/suppressions/${encodeURIComponent(address)}`, { key: A.secretKey });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("suppression_not_found");
    const calls = sg.accepted.length;
    await email(address);
    expect(sg.accepted.length).toBe(calls + 1);
  });
});

describe("analytics count engagement", () => {
  test("overview and channels: opened, clicked, complained and bounced of these sends", async () => {
    const o = await call("GET", "/v1/analytics/overview?period=1h", { key: A.secretKey });
    // email: the tracked send (delivered, opened, clicked), the bounce, the complaint (delivered)
    expect(o.body.data).toMatchObject({ opened: 1, clicked: 1, complained: 1, bounced: 1 });
    const ch = await call("GET", "/v1/analytics/channels?period=1h", { key: A.secretKey });
    const byName = Object.fromEntries(ch.body.data.map((c: any) => [c.channel, c]));
    expect(byName.email).toMatchObject({ delivered: 2, opened: 1, clicked: 1, complained: 1, bounced: 1, suppressed: 1 });
    expect(byName.sms).toMatchObject({ delivered: 2, failed: 1, opened: 0 });
  });
});
