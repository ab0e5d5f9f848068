// A notification's subscriber and content (issue 14 items 5, 6, 12): one sent to a subscriber's own
// address is linked to that subscriber (preferences, erasure), the detail shows the content the last
// attempt sent and erasure redacts it, and an unconfigured channel is named before the recipient.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sendAttempt } from "../../domain/delivery/send-attempt";
import { config } from "../../config";
import { senderMessage } from "../../domain/delivery/channel-sender-mail";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";
import { connect, deletePrefix } from "../support/runtime-redis";
import { deleteTenants } from "../support/tenant-cleanup";
import { expectNoLiveSender } from "./delivery-support";

let T: Awaited<ReturnType<typeof createTenant>>;
const ctx = () => ({ deliveries: 1, async schedule() { return Date.now(); } });

beforeAll(async () => {
  await expectNoLiveSender(); // this file is the only consumer of its messages
  T = await createTenant();
});

afterAll(async () => {
  await deleteTenants([T.tenant.id]);
  const r = connect();
  await deletePrefix(r, config.redisPrefix);
  await r.quit();
});

async function send(body: Record<string, unknown>, key = T.sandboxKey) {
  const r = await call("POST", "/v1/notifications", { key, body });
  expect(r.status).toBe(202);
  return r.body.data.id as string;
}

/** Runs the first attempt in this process, as a sender host would. */
async function deliver(id: string) {
  const [row] = await sql`select id, tenant_id, environment, channel from notifications where id = ${id}`;
  await sendAttempt(senderMessage({ id: row!.id, tenantId: row!.tenant_id, environment: row!.environment, channel: row!.channel }, 1), ctx());
}

const detail = async (id: string) => (await call("GET", `/v1/notifications/${id}`, { key: T.sandboxKey })).body.data;

async function subscriber(body: Record<string, unknown>) {
  const r = await call("POST", "/v1/subscribers", { key: T.sandboxKey, body });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; external_id: string };
}

describe("the notification detail shows what the last attempt sent (content)", () => {
  test("email: subject, body and html_body; null before any attempt", async () => {
    const id = await send({ channel: "email", to: "content-1@example.com", data: { subject: "Hello Ana", content: "Plain text", html_body: "<p>Rich</p>" } });
    expect((await detail(id)).content).toBeNull();
    await deliver(id);
    const d = await detail(id);
    expect(d.status).toBe("delivered");
    expect(d.attempts).toHaveLength(1);
    expect(d.content).toEqual({ subject: "Hello Ana", body: "Plain text", html_body: "<p>Rich</p>" });
  });

  test("a templated SMS: the rendered body", async () => {
    const tpl = await call("POST", "/v1/templates", {
      key: T.sandboxKey,
      body: { slug: "otp", name: "OTP", channel: "sms", content: "Your code is {{ code }}" },
    });
    expect(tpl.status).toBe(201);
    const id = await send({ channel: "sms", to: "+5511988880001", template: "otp", data: { code: "424242" } });
    await deliver(id);
    expect((await detail(id)).content).toEqual({ body: "Your code is 424242" });
  });

  test("push: title and body", async () => {
    const id = await send({ channel: "push", to: "fcm-token-abcdefghijklmnopqrstuvwxyz:0123", data: { title: "Shipped", body: "Order 1042" } });
    await deliver(id);
    expect((await detail(id)).content).toEqual({ title: "Shipped", body: "Order 1042" });
  });

  test("erasure redacts it", async () => {
    await subscriber({ external_id: "content-erase", email: "content-erase@example.com" });
    const id = await send({ channel: "email", to: "content-erase@example.com", data: { subject: "Secret", content: "Private words" } });
    await deliver(id);
    expect((await detail(id)).content.body).toBe("Private words");
    expect((await call("DELETE", "/v1/subscribers/content-erase", { key: T.sandboxKey })).status).toBe(204);
    const d = await call("GET", `/v1/notifications/${id}`, { key: T.sandboxKey });
    expect(d.body.data.recipient).toBe("[erased]");
    expect(d.body.data.content).toBeNull();
    expect(d.text).not.toContain("Private words");
    expect(d.text).not.toContain("Secret");
  });
});

describe("a notification to a subscriber's own address belongs to that subscriber", () => {
  test("email (any case) and SMS are linked by address; an unknown address is not", async () => {
    const s = await subscriber({ external_id: "own-1", email: "Own.One@Example.com", phone: "+5511988880002" });
    const byEmail = await send({ channel: "email", to: "own.one@example.COM", data: { subject: "s", content: "c" } });
    const byPhone = await send({ channel: "sms", to: "+5511988880002", data: { content: "c" } });
    const stranger = await send({ channel: "email", to: "nobody-own@example.com", data: { subject: "s", content: "c" } });
    expect((await detail(byEmail)).subscriber_id).toBe(s.id);
    expect((await detail(byPhone)).subscriber_id).toBe(s.id);
    expect((await detail(stranger)).subscriber_id).toBeNull();
  });

  test("its preferences apply to an email sent to its address", async () => {
    const s = await subscriber({ external_id: "own-pref", email: "own-pref@example.com" });
    const off = await call("PUT", "/v1/subscribers/own-pref/preferences", {
      key: T.sandboxKey,
      body: { preferences: [{ category: "all", channel: "email", enabled: false }] },
    });
    expect(off.status).toBe(200);
    const id = await send({ channel: "email", to: "OWN-PREF@example.com", data: { subject: "s", content: "c" } });
    expect((await detail(id)).subscriber_id).toBe(s.id);
    await deliver(id);
    expect(await detail(id)).toMatchObject({ status: "suppressed", suppressed_reason: "preference_disabled", content: null });
  });

  test("an address two subscribers share: linked to the older one, and off when either turned it off", async () => {
    const older = await subscriber({ external_id: "shared-a", email: "shared-own@example.com" });
    await subscriber({ external_id: "shared-b", email: "shared-own@example.com" });
    await call("PUT", "/v1/subscribers/shared-b/preferences", {
      key: T.sandboxKey,
      body: { preferences: [{ category: "all", channel: "email", enabled: false }] },
    });
    const id = await send({ channel: "email", to: "shared-own@example.com", data: { subject: "s", content: "c" } });
    expect((await detail(id)).subscriber_id).toBe(older.id);
    await deliver(id);
    expect((await detail(id)).status).toBe("suppressed");
  });

  test("its erasure redacts and then suppresses what was sent to its address", async () => {
    await subscriber({ external_id: "own-erase", email: "own-erase@example.com" });
    const id = await send({ channel: "email", to: "own-erase@example.com", data: { subject: "s", content: "c" } });
    expect((await call("DELETE", "/v1/subscribers/own-erase", { key: T.sandboxKey })).status).toBe(204);
    await deliver(id);
    expect(await detail(id)).toMatchObject({ recipient: "[erased]", status: "suppressed", suppressed_reason: "erased" });
  });
});

describe("an unconfigured production channel is named before the recipient's format", () => {
  test("push with a malformed recipient and no push channel -> 422 channel_not_configured", async () => {
    for (const to of ["not a token", "fcm-token-abcdefghijklmnopqrstuvwxyz:0123"]) {
      const r = await call("POST", "/v1/notifications", { key: T.secretKey, body: { channel: "push", to, data: { title: "t", body: "b" } } });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("channel_not_configured");
    }
  });

  test("a channel that delivers (sandbox) still checks the recipient", async () => {
    const r = await call("POST", "/v1/notifications", { key: T.sandboxKey, body: { channel: "push", to: "not a token", data: { title: "t" } } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(r.body.error.details.to).toBeDefined();
  });
});
