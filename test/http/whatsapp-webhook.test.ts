// /webhooks/whatsapp (DESIGN.md 7): GET echoes hub.challenge for a known verify_token (else 403);
// POST is verified with X-Hub-Signature-256 and moves notifications found by provider message id.
import { beforeAll, describe, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { signWebhook, statusWebhookBody } from "../support/fake-whatsapp-cloud";

const APP_SECRET = `app-secret-${crypto.randomUUID()}`;
const VERIFY = `verify-${crypto.randomUUID()}`;
const PHONE_ID = String(Date.now()) + String(Math.floor(Math.random() * 1000));
let T: Awaited<ReturnType<typeof createTenant>>;

async function sentNotification(): Promise<{ id: string; wamid: string }> {
  const r = await call("POST", "/v1/notifications", { key: T.secretKey, body: { channel: "whatsapp", to: "+5511912345678", data: { content: "hi" } } });
  expect(r.status).toBe(202);
  const wamid = `wamid.${crypto.randomUUID()}`;
  // as the channel sender leaves it after the Cloud API accepted the message
  await sql`update notifications set status = 'sent', sent_at = now(), attempt_count = 1, provider = 'whatsapp_cloud', provider_message_id = ${wamid} where id = ${r.body.data.id}`;
  return { id: r.body.data.id, wamid };
}

function post(body: string, signature: string | null) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (signature !== null) headers["x-hub-signature-256"] = signature;
  return call("POST", "/webhooks/whatsapp", { rawBody: body, headers });
}

beforeAll(async () => {
  T = await createTenant();
  const r = await call("POST", "/v1/channels", {
    key: T.secretKey,
    body: {
      channel: "whatsapp",
      provider: "whatsapp_cloud",
      credentials: { access_token: "tok", app_secret: APP_SECRET },
      settings: { phone_number_id: PHONE_ID, verify_token: VERIFY },
    },
  });
  expect(r.status).toBe(201);
});

describe("GET /webhooks/whatsapp", () => {
  test("echoes hub.challenge when hub.verify_token matches a tenant's whatsapp_cloud settings", async () => {
    const r = await call("GET", `/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=1158201444`);
    expect(r.status).toBe(200);
    expect(r.text).toBe("1158201444");
  });

  test("403 with the standard error body for an unknown token or a missing challenge", async () => {
    const a = await call("GET", `/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`);
    expect(a.status).toBe(403);
    expect(a.body.error.code).toBeString();
    const b = await call("GET", `/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=${VERIFY}`);
    expect(b.status).toBe(403);
  });
});

describe("POST /webhooks/whatsapp", () => {
  test("delivered: moves sent -> delivered, sets delivered_at, emits notification.delivered", async () => {
    const n = await sentNotification();
    const body = statusWebhookBody({ phoneNumberId: PHONE_ID, messageId: n.wamid, status: "delivered", recipient: "5511912345678" });
    const r = await post(body, signWebhook(body, APP_SECRET));
    expect(r.status).toBe(200);
    const [row] = await sql`select status, delivered_at from notifications where id = ${n.id}`;
    expect(row!.status).toBe("delivered");
    expect(row!.delivered_at).toBeTruthy();
    const ev = await sql`select type from events where data -> 'notification' ->> 'id' = ${n.id} and type = 'notification.delivered'`;
    expect(ev).toHaveLength(1);
    // the same callback again changes nothing and emits nothing
    expect((await post(body, signWebhook(body, APP_SECRET))).status).toBe(200);
    expect(await sql`select type from events where data -> 'notification' ->> 'id' = ${n.id} and type = 'notification.delivered'`).toHaveLength(1);
  });

  test("read: sets opened_at (and delivered) and emits notification.opened", async () => {
    const n = await sentNotification();
    const body = statusWebhookBody({ phoneNumberId: PHONE_ID, messageId: n.wamid, status: "read", recipient: "5511912345678" });
    expect((await post(body, signWebhook(body, APP_SECRET))).status).toBe(200);
    const [row] = await sql`select status, opened_at from notifications where id = ${n.id}`;
    expect(row!.status).toBe("delivered");
    expect(row!.opened_at).toBeTruthy();
    expect(await sql`select 1 from events where data -> 'notification' ->> 'id' = ${n.id} and type = 'notification.opened'`).toHaveLength(1);
  });

  test("failed: moves to failed with the provider's error and emits notification.failed", async () => {
    const n = await sentNotification();
    const body = statusWebhookBody({
      phoneNumberId: PHONE_ID,
      messageId: n.wamid,
      status: "failed",
      recipient: "5511912345678",
      errors: [{ code: 131026, title: "Message undeliverable" }],
    });
    expect((await post(body, signWebhook(body, APP_SECRET))).status).toBe(200);
    const [row] = await sql`select status, failed_at, error from notifications where id = ${n.id}`;
    expect(row!.status).toBe("failed");
    expect(row!.error).toMatchObject({ code: "whatsapp_131026" });
    const d = await call("GET", `/v1/notifications/${n.id}`, { key: T.secretKey });
    expect(d.body.data.error).toEqual({ code: "whatsapp_131026", message: "Message undeliverable" });
  });

  test("bad signature -> 401 and nothing changes", async () => {
    const n = await sentNotification();
    const body = statusWebhookBody({ phoneNumberId: PHONE_ID, messageId: n.wamid, status: "delivered", recipient: "5511912345678" });
    for (const sig of [signWebhook(body, "wrong-secret"), "sha256=00", null, signWebhook(body + " ", APP_SECRET)]) {
      const r = await post(body, sig);
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_signature");
    }
    const [row] = await sql`select status, delivered_at from notifications where id = ${n.id}`;
    expect(row).toEqual({ status: "sent", delivered_at: null });
  });

  test("a body naming an unknown phone number id -> 401", async () => {
    const body = statusWebhookBody({ phoneNumberId: "999", messageId: "wamid.x", status: "delivered", recipient: "1" });
    expect((await post(body, signWebhook(body, APP_SECRET))).status).toBe(401);
  });

  test("unknown message ids are acknowledged (200) without changes", async () => {
    const body = statusWebhookBody({ phoneNumberId: PHONE_ID, messageId: "wamid.unknown", status: "delivered", recipient: "1" });
    const r = await post(body, signWebhook(body, APP_SECRET));
    expect(r.status).toBe(200);
    expect(r.body.updated).toBe(0);
  });
});
