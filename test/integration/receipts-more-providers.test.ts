// Receipts of the issue-23 providers end to end: messages sent through the channel sender to each
// fake, which then posts the vendor's own signed webhook to the public /webhooks/<provider>/<id> route.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { config } from "../../config";
import { sql } from "../../store/db";
import { app, call, createTenant, createListeningTenant } from "../support/fixtures";
import * as fakeMailgun from "../support/fake-mailgun";
import * as fakePostmark from "../support/fake-postmark";
import * as fakeResend from "../support/fake-resend";
import * as fakeSes from "../support/fake-ses";
import * as fakeVonage from "../support/fake-vonage";
import { deleteTenants } from "../support/tenant-cleanup";
import { startDeliveryHost, waitForStatus } from "./delivery-support";

let delivery: Awaited<ReturnType<typeof startDeliveryHost>>;
let mg: fakeMailgun.FakeMailgun;
let pm: fakePostmark.FakePostmark;
let rs: fakeResend.FakeResend;
let vg: fakeVonage.FakeVonage;
let ses: fakeSes.FakeSes;
const tenants: Awaited<ReturnType<typeof createTenant>>[] = [];
const inProcess = (req: Request) => app().handle(req);
const base = config.publicUrl.replace(/\/+$/, "");
const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as any });

async function channel(key: string, body: Record<string, unknown>): Promise<string> {
  const r = await call("POST", "/v1/channels", { key, body });
  if (r.status !== 201) throw new Error(`channel: ${r.status} ${r.text}`);
  return r.body.data.id;
}

async function send(key: string, body: Record<string, unknown>, want = ["sent"]) {
  const r = await call("POST", "/v1/notifications", { key, body });
  expect(r.status).toBe(202);
  const row = await waitForStatus(r.body.data.id, want);
  expect(want).toContain(row!.status);
  return row!;
}

async function row(id: string) {
  const [r] = await sql`select * from notifications where id = ${id}`;
  return r!;
}
async function eventTypes(id: string) {
  const rows = await sql`select type from events where data -> 'notification' ->> 'id' = ${id} order by created_at, id`;
  return rows.map((r) => r.type as string);
}

beforeAll(async () => {
  delivery = await startDeliveryHost();
  [mg, pm, rs, vg, ses] = await Promise.all([fakeMailgun.start(), fakePostmark.start(), fakeResend.start(), fakeVonage.start(), fakeSes.start()]);
});

afterAll(async () => {
  await delivery.stop();
  await Promise.all([mg.stop(), pm.stop(), rs.stop(), vg.stop(), ses.stop()]);
  await deleteTenants(tenants.map((t) => t.tenant.id));
});

describe("Mailgun webhooks (POST /webhooks/mailgun/:channel_id)", () => {
  let M: Awaited<ReturnType<typeof createTenant>>;
  let channelId: string;
  const url = () => `${base}/webhooks/mailgun/${channelId}`;
  const email = (to: string, want?: string[]) => send(M.secretKey, { channel: "email", to, data: { subject: "Hi", content: "Hello" } }, want);

  beforeAll(async () => {
    M = await createListeningTenant();
    tenants.push(M);
    channelId = await channel(M.secretKey, {
      channel: "email",
      provider: "mailgun",
      credentials: { api_key: mg.apiKey, webhook_signing_key: mg.webhookSigningKey },
      settings: { domain: mg.domain, from_email: "hello@mg.acme.test", base_url: mg.url },
    });
  });

  test("delivered then opened: sent -> delivered, opened_at and the engagement recorded once", async () => {
    const n = await email("ana@example.com");
    const mid = n.provider_message_id as string;
    expect(mg.accepted.find((a) => a.messageId === mid)?.form["v:notification_id"]).toBe(n.id);
    const delivered = mg.event(mid, "delivered", { "delivery-status": { code: 250, message: "OK" } });
    expect(await json(await mg.postEvent(url(), delivered, { deliver: inProcess }))).toEqual({ status: 200, body: { data: { received: 1, matched: 1, applied: 1, ignored: 0 } } });
    expect((await row(n.id)).status).toBe("delivered");
    const opened = mg.event(mid, "opened", { ip: "198.51.100.7", "client-info": { "user-agent": "Mozilla/5.0" } });
    expect((await json(await mg.postEvent(url(), opened, { deliver: inProcess }))).body.data.applied).toBe(1);
    // Mailgun retries a webhook it thinks failed: the same event id, newly signed, changes nothing
    expect((await json(await mg.postEvent(url(), opened, { deliver: inProcess }))).body.data).toMatchObject({ matched: 1, applied: 0 });
    expect(await eventTypes(n.id)).toEqual(["notification.created", "notification.sent", "notification.delivered", "notification.opened"]);
    const eng = await sql`select kind, source, ip from notification_engagements where notification_id = ${n.id}`;
    expect([...eng]).toEqual([{ kind: "open", source: "mailgun", ip: "198.51.100.7" }]);
  });

  test("a permanent bounce: bounced with the reason, the address suppressed; a temporary failure is ignored", async () => {
    const address = `bounce-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const n = await email(address);
    const mid = n.provider_message_id as string;
    const temp = await json(await mg.postEvent(url(), mg.event(mid, "failed", { severity: "temporary", reason: "generic" }), { deliver: inProcess }));
    expect(temp.body.data).toEqual({ received: 1, matched: 0, applied: 0, ignored: 1 });
    expect((await row(n.id)).status).toBe("sent");
    const hard = mg.event(mid, "failed", { severity: "permanent", reason: "bounce", "delivery-status": { code: 550, description: "550 5.1.1 No such user" } });
    expect((await json(await mg.postEvent(url(), hard, { deliver: inProcess }))).body.data.applied).toBe(1);
    const r = await row(n.id);
    expect(r.status).toBe("bounced");
    const d = await call("GET", `/v1/notifications/${n.id}`, { key: M.secretKey });
    expect(d.body.data.error.code).toBe("mailgun_bounce");
    const next = await email(address, ["suppressed"]);
    expect(next.suppressed_reason).toBe("bounced");
  });

  test("a wrong signing key, a forged signature or none: 401 invalid_signature, nothing changes", async () => {
    const n = await email("carla@example.com");
    const ev = mg.event(n.provider_message_id, "delivered");
    for (const opts of [{ signingKey: "another-signing-key" }, { signature: "0".repeat(64) }, { signature: null }]) {
      const r = await json(await mg.postEvent(url(), ev, { deliver: inProcess, ...opts }));
      expect(r.status).toBe(opts.signature === null ? 422 : 401);
      if (r.status === 401) expect(r.body.error.code).toBe("invalid_signature");
    }
    expect((await row(n.id)).status).toBe("sent");
  });

  test("a timestamp more than 5 minutes old is 400 callback_expired; an unknown message 404", async () => {
    const n = await email("dora@example.com");
    const stale = await json(await mg.postEvent(url(), mg.event(n.provider_message_id, "delivered"), { deliver: inProcess, timestamp: String(Math.floor(Date.now() / 1000) - 301) }));
    expect(stale.status).toBe(400);
    expect(stale.body.error.code).toBe("callback_expired");
    const unknown = await json(await mg.postEvent(url(), mg.event("20260101.x.Y@mg.acme.test", "delivered"), { deliver: inProcess }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("notification_not_found");
    expect((await row(n.id)).status).toBe("sent");
  });

  test("a channel without webhook_signing_key refuses events; another provider's channel id is 404", async () => {
    const T = await createListeningTenant();
    tenants.push(T);
    const id = await channel(T.secretKey, { channel: "email", provider: "mailgun", credentials: { api_key: mg.apiKey }, settings: { domain: mg.domain, from_email: "a@mg.acme.test", base_url: mg.url } });
    const r = await json(await mg.postEvent(`${base}/webhooks/mailgun/${id}`, mg.event("x@y", "delivered"), { deliver: inProcess }));
    expect(r.status).toBe(401);
    expect(r.body.error.message).toContain("webhook_signing_key");
    const sms = await channel(T.secretKey, { channel: "sms", provider: "sandbox" });
    expect((await json(await mg.postEvent(`${base}/webhooks/mailgun/${sms}`, mg.event("x@y", "delivered"), { deliver: inProcess }))).status).toBe(404);
  });
});

describe("Postmark webhooks (POST /webhooks/postmark/:channel_id, basic auth)", () => {
  let P: Awaited<ReturnType<typeof createTenant>>;
  let channelId: string;
  const auth = { username: "nms-postmark", password: `pw-${crypto.randomUUID()}` };
  const url = () => `${base}/webhooks/postmark/${channelId}`;
  const email = (to: string, want?: string[]) => send(P.secretKey, { channel: "email", to, data: { subject: "Hi", content: "Hello" } }, want);

  beforeAll(async () => {
    P = await createListeningTenant();
    tenants.push(P);
    channelId = await channel(P.secretKey, {
      channel: "email",
      provider: "postmark",
      credentials: { server_token: pm.serverToken, webhook_username: auth.username, webhook_password: auth.password },
      settings: { from_email: "hello@acme.test", base_url: pm.url },
    });
  });

  test("Delivery then Click: delivered, clicked with the link; Metadata carries the notification id", async () => {
    const n = await email("ana@example.com");
    const mid = n.provider_message_id as string;
    const delivered = pm.webhook(mid, "Delivery");
    expect(delivered.Metadata).toEqual({ notification_id: n.id });
    expect(await json(await pm.postWebhook(url(), delivered, auth, inProcess))).toEqual({ status: 200, body: { data: { received: 1, matched: 1, applied: 1, ignored: 0 } } });
    expect((await json(await pm.postWebhook(url(), pm.webhook(mid, "Click"), auth, inProcess))).body.data.applied).toBe(1);
    const r = await row(n.id);
    expect(r.status).toBe("delivered");
    expect(r.clicked_at).toBeInstanceOf(Date);
    expect(await eventTypes(n.id)).toEqual(["notification.created", "notification.sent", "notification.delivered", "notification.clicked"]);
  });

  test("a hard bounce: bounced, suppressed; the same bounce again changes nothing", async () => {
    const address = `pm-bounce-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const n = await email(address);
    const bounce = pm.webhook(n.provider_message_id, "Bounce");
    expect((await json(await pm.postWebhook(url(), bounce, auth, inProcess))).body.data.applied).toBe(1);
    expect((await json(await pm.postWebhook(url(), bounce, auth, inProcess))).body.data.applied).toBe(0);
    expect((await row(n.id)).status).toBe("bounced");
    const d = await call("GET", `/v1/notifications/${n.id}`, { key: P.secretKey });
    expect(d.body.data.error.code).toBe("postmark_hard_bounce");
    expect((await email(address, ["suppressed"])).suppressed_reason).toBe("bounced");
  });

  test("wrong or missing basic auth: 401 invalid_signature, nothing changes; an unknown MessageID 404", async () => {
    const n = await email("bea@example.com");
    for (const a of [{ ...auth, password: "wrong-password-123" }, { ...auth, username: "someone" }, null]) {
      const r = await json(await pm.postWebhook(url(), pm.webhook(n.provider_message_id, "Delivery"), a, inProcess));
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_signature");
    }
    expect((await row(n.id)).status).toBe("sent");
    const unknown = await json(await pm.postWebhook(url(), pm.webhook(crypto.randomUUID(), "Delivery"), auth, inProcess));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("notification_not_found");
  });
});

describe("Resend webhooks (POST /webhooks/resend/:channel_id, Svix-signed)", () => {
  let R: Awaited<ReturnType<typeof createTenant>>;
  let channelId: string;
  const url = () => `${base}/webhooks/resend/${channelId}`;
  const email = (to: string, want?: string[]) => send(R.secretKey, { channel: "email", to, data: { subject: "Hi", content: "Hello" } }, want);

  beforeAll(async () => {
    R = await createListeningTenant();
    tenants.push(R);
    channelId = await channel(R.secretKey, {
      channel: "email",
      provider: "resend",
      credentials: { api_key: rs.apiKey, webhook_secret: rs.webhookSecret },
      settings: { from_email: "hello@acme.test", base_url: rs.url },
    });
  });

  test("email.delivered: delivered; a redelivery with the same svix-id changes nothing", async () => {
    const n = await email("ana@example.com");
    const ev = rs.event(n.provider_message_id, "email.delivered");
    expect((ev.data as any).tags).toEqual({ notification_id: n.id });
    expect(await json(await rs.postEvent(url(), ev, { deliver: inProcess, id: "msg_redelivered" }))).toEqual({ status: 200, body: { data: { received: 1, matched: 1, applied: 1, ignored: 0 } } });
    expect((await json(await rs.postEvent(url(), ev, { deliver: inProcess, id: "msg_redelivered" }))).body.data.applied).toBe(0);
    expect((await row(n.id)).status).toBe("delivered");
  });

  test("email.bounced (Permanent): bounced and suppressed", async () => {
    const address = `rs-bounce-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const n = await email(address);
    const ev = rs.event(n.provider_message_id, "email.bounced", { bounce: { type: "Permanent", subType: "General", message: "550 No such user" } });
    expect((await json(await rs.postEvent(url(), ev, { deliver: inProcess }))).body.data.applied).toBe(1);
    expect((await row(n.id)).status).toBe("bounced");
    expect((await email(address, ["suppressed"])).suppressed_reason).toBe("bounced");
  });

  test("forged, missing or stale signatures change nothing", async () => {
    const n = await email("eva@example.com");
    const ev = rs.event(n.provider_message_id, "email.delivered");
    for (const opts of [{ secret: `whsec_${Buffer.alloc(24, 1).toString("base64")}` }, { signature: null }, { signature: "v1,AAAA" }]) {
      const r = await json(await rs.postEvent(url(), ev, { deliver: inProcess, ...opts }));
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_signature");
    }
    const stale = await json(await rs.postEvent(url(), ev, { deliver: inProcess, timestamp: Math.floor(Date.now() / 1000) - 301 }));
    expect(stale.status).toBe(400);
    expect(stale.body.error.code).toBe("callback_expired");
    expect((await row(n.id)).status).toBe("sent");
  });
});

describe("Vonage status webhooks (POST /webhooks/vonage/:channel_id, JWT-signed)", () => {
  let V: Awaited<ReturnType<typeof createTenant>>;
  let channelId: string;
  const sms = () => send(V.secretKey, { channel: "sms", to: "+447700900123", data: { content: "code 1234" } });

  beforeAll(async () => {
    V = await createListeningTenant();
    tenants.push(V);
    channelId = await channel(V.secretKey, {
      channel: "sms",
      provider: "vonage",
      credentials: { application_id: vg.applicationId, private_key: vg.privateKey, signature_secret: vg.signatureSecret },
      settings: { from: "Acme", base_url: vg.url },
    });
  });

  test("every message carries webhook_url = PUBLIC_URL/webhooks/vonage/<channel id>; delivered moves sent -> delivered", async () => {
    const n = await sms();
    const m = vg.messages.find((x) => x.messageUuid === n.provider_message_id)!;
    expect(m.body.webhook_url).toBe(`${base}/webhooks/vonage/${channelId}`);
    expect(m.body.client_ref).toBe(n.id);
    expect(await json(await vg.sendStatus(m.messageUuid, "delivered", { deliver: inProcess }))).toEqual({ status: 200, body: { data: { received: 1, matched: 1, applied: 1, ignored: 0 } } });
    expect((await row(n.id)).status).toBe("delivered");
  });

  test("undeliverable: failed with Vonage's error code", async () => {
    const n = await sms();
    await vg.sendStatus(n.provider_message_id, "undeliverable", { deliver: inProcess, error: { type: "https://developer.vonage.com/api-errors/messages#1320", title: "1320", detail: "Message failed: unknown subscriber" } });
    const d = await call("GET", `/v1/notifications/${n.id}`, { key: V.secretKey });
    expect(d.body.data.status).toBe("failed");
    expect(d.body.data.error).toMatchObject({ code: "vonage_1320", message: "Message failed: unknown subscriber" });
  });

  test("a JWT under another secret, a wrong payload_hash, an old token or none: 401, nothing changes", async () => {
    const n = await sms();
    for (const o of [{ secret: "another-signature-secret-value" }, { payloadHash: "0".repeat(64) }, { ageSeconds: 900 }, { authorization: null }]) {
      const r = await json(await vg.sendStatus(n.provider_message_id, "delivered", { deliver: inProcess, ...o }));
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_signature");
    }
    expect((await row(n.id)).status).toBe("sent");
  });
});

describe("SES events through SNS (POST /webhooks/ses/:channel_id)", () => {
  let S: Awaited<ReturnType<typeof createTenant>>;
  let channelId: string;
  const url = () => `${base}/webhooks/ses/${channelId}`;
  const email = (to: string, want?: string[]) => send(S.secretKey, { channel: "email", to, data: { subject: "Hi", content: "Hello" } }, want);

  beforeAll(async () => {
    S = await createListeningTenant();
    tenants.push(S);
    channelId = await channel(S.secretKey, {
      channel: "email",
      provider: "ses",
      credentials: { access_key_id: ses.accessKeyId, secret_access_key: ses.secretAccessKey },
      settings: { region: ses.region, from_email: "hello@acme.test", configuration_set: "nms-events", base_url: ses.url, sns_topic_arn: ses.topicArn },
    });
  });

  test("a SubscriptionConfirmation is confirmed by visiting its SubscribeURL", async () => {
    const r = await json(await ses.postSubscriptionConfirmation(url(), { deliver: inProcess }));
    expect(r).toEqual({ status: 200, body: { data: { received: 1, matched: 0, applied: 0, ignored: 1 } } });
    expect(ses.confirmations).toHaveLength(1);
  });

  test("Delivery (SignatureVersion 2) then Open (version 1): delivered, opened; an SNS redelivery changes nothing", async () => {
    const n = await email("ana@example.com");
    const mid = n.provider_message_id as string;
    expect((ses.accepted.find((a) => a.messageId === mid)!.body.EmailTags as any[])[0]).toEqual({ Name: "notification_id", Value: n.id });
    const delivered = await json(await ses.postNotification(url(), ses.event(mid, "Delivery"), { deliver: inProcess, messageId: "sns-msg-1" }));
    expect(delivered).toEqual({ status: 200, body: { data: { received: 1, matched: 1, applied: 1, ignored: 0 } } });
    expect((await json(await ses.postNotification(url(), ses.event(mid, "Delivery"), { deliver: inProcess, messageId: "sns-msg-1" }))).body.data.applied).toBe(0);
    expect((await json(await ses.postNotification(url(), ses.event(mid, "Open"), { deliver: inProcess, signatureVersion: "1" }))).body.data.applied).toBe(1);
    const r = await row(n.id);
    expect(r.status).toBe("delivered");
    expect(r.opened_at).toBeInstanceOf(Date);
    expect(await eventTypes(n.id)).toEqual(["notification.created", "notification.sent", "notification.delivered", "notification.opened"]);
  });

  test("a Permanent bounce: bounced with the diagnostic code, the address suppressed", async () => {
    const address = `ses-bounce-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const n = await email(address);
    expect((await json(await ses.postNotification(url(), ses.event(n.provider_message_id, "Bounce"), { deliver: inProcess }))).body.data.applied).toBe(1);
    const d = await call("GET", `/v1/notifications/${n.id}`, { key: S.secretKey });
    expect(d.body.data.status).toBe("bounced");
    expect(d.body.data.error).toMatchObject({ code: "ses_bounce_permanent", message: "smtp; 550 5.1.1 user unknown" });
    expect((await email(address, ["suppressed"])).suppressed_reason).toBe("bounced");
  });

  test("a forged signature, a foreign certificate URL or another topic: 401, nothing changes", async () => {
    const n = await email("flor@example.com");
    const ev = ses.event(n.provider_message_id, "Delivery");
    const otherKey = (await import("node:crypto")).generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    for (const o of [{ privateKey: otherKey }, { signature: "AAAA" }, { certUrl: "https://evil.example.com/SimpleNotificationService-1.pem" }, { topicArn: "arn:aws:sns:eu-west-1:123456789012:other" }]) {
      const r = await json(await ses.postNotification(url(), ev, { deliver: inProcess, ...o }));
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_signature");
    }
    expect((await row(n.id)).status).toBe("sent");
  });

  test("a body that is not an SNS message is 422; a channel without sns_topic_arn refuses (401)", async () => {
    const bad = await inProcess(new Request(url(), { method: "POST", headers: { "content-type": "text/plain" }, body: '{"hello":"world"}' }));
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as any).error.code).toBe("validation_failed");
    const T = await createListeningTenant();
    tenants.push(T);
    const id = await channel(T.secretKey, { channel: "email", provider: "ses", credentials: { access_key_id: ses.accessKeyId, secret_access_key: ses.secretAccessKey }, settings: { region: ses.region, from_email: "a@acme.test", base_url: ses.url } });
    const r = await json(await ses.postNotification(`${base}/webhooks/ses/${id}`, ses.event("x", "Delivery"), { deliver: inProcess }));
    expect(r.status).toBe(401);
    expect(r.body.error.message).toContain("sns_topic_arn");
  });
});
