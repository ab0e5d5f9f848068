// The channel test asks the provider (issue 27 item 2): an SMTP configuration is checked by connecting
// and authenticating without sending (a closed port, wrong credentials and a working server each say
// so in the provider's words); with a recipient, a test is sent through the channel sender and the
// provider's answer to it comes back; in_app needs no configuration in production (the built-in inbox).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startApiProcess, type ApiProcess } from "../support/api-process";
import { start as startSmtp, type FakeSmtp } from "../support/fake-smtp";
import { freePort } from "../support/dashboard-session";
import { createTenant } from "../support/fixtures";
import { startDeliveryHost } from "./delivery-support";
import { dropTenant } from "./workflow-support";

let api: ApiProcess;
let smtp: FakeSmtp;
let delivery: Awaited<ReturnType<typeof startDeliveryHost>>;
let T: Awaited<ReturnType<typeof createTenant>>;
let closedPort: number;

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${T.secretKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
}

async function configureSmtp(port: number, credentials: Record<string, string> = { username: "nms", password: "s3cret-pass" }) {
  await call("DELETE", "/v1/channels/email");
  const r = await call("POST", "/v1/channels", {
    channel: "email",
    provider: "smtp",
    credentials,
    settings: { host: "127.0.0.1", port, secure: false, from_email: "noreply@channel-test.example" },
  });
  expect(r.status).toBe(201);
}

beforeAll(async () => {
  smtp = await startSmtp({ auth: { user: "nms", pass: "s3cret-pass" } });
  closedPort = await freePort();
  api = await startApiProcess({ CHANNEL_TEST_WAIT_MS: "30000" });
  delivery = await startDeliveryHost();
  T = await createTenant();
}, 60_000);

afterAll(async () => {
  await delivery?.stop();
  await api?.stop();
  await smtp?.stop();
  if (T) await dropTenant(T.tenant.id);
});

describe("without a recipient: connect and authenticate, nothing sent", () => {
  test("a closed port: success false, the connection error in the provider's words", async () => {
    await configureSmtp(closedPort);
    const r = await call("POST", "/v1/channels/email/test");
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ success: false, checked: "connection", provider_response: { host: "127.0.0.1", port: closedPort } });
    expect(r.body.data.message).toContain("ECONNREFUSED");
    expect(JSON.stringify(r.body)).not.toContain("s3cret-pass");
  }, 30_000);

  test("a wrong password: success false with the server's 535 answer, the password never echoed", async () => {
    await configureSmtp(smtp.port, { username: "nms", password: "wrong-password" });
    const r = await call("POST", "/v1/channels/email/test");
    expect(r.body.data).toMatchObject({ success: false, checked: "connection" });
    expect(r.body.data.message).toMatch(/535|auth/i);
    expect(JSON.stringify(r.body)).not.toContain("wrong-password");
  }, 30_000);

  test("a working server: success true, connected and authenticated, and no message was sent", async () => {
    await configureSmtp(smtp.port);
    smtp.reset();
    const r = await call("POST", "/v1/channels/email/test");
    expect(r.body.data).toMatchObject({ success: true, checked: "connection" });
    expect(r.body.data.message).toBe(`smtp: Connected to 127.0.0.1:${smtp.port} and authenticated; nothing was sent`);
    expect(smtp.messages).toHaveLength(0);
  }, 30_000);
});

describe("with a recipient: a test is sent and the provider's answer reported", () => {
  test("accepted: success true with the SMTP server's reply and the notification to follow", async () => {
    await configureSmtp(smtp.port);
    smtp.reset();
    const r = await call("POST", "/v1/channels/email/test", { to: "ana@channel-test.example" });
    expect(r.body.data).toMatchObject({ success: true, checked: "delivery" });
    expect(r.body.data.provider_response.smtp_response).toMatch(/^250 /);
    expect(smtp.messages.map((m) => m.rcptTo)).toEqual([["ana@channel-test.example"]]);
    const n = await call("GET", `/v1/notifications/${r.body.data.notification_id}`);
    expect(n.body.data.metadata).toEqual({ test: true });
  }, 40_000);

  test("refused: success false with the server's 550", async () => {
    await configureSmtp(smtp.port);
    smtp.script({ kind: "reject", code: 550, message: "No such user" });
    const r = await call("POST", "/v1/channels/email/test", { to: "nobody@channel-test.example" });
    expect(r.body.data).toMatchObject({ success: false, checked: "delivery" });
    expect(r.body.data.message).toContain("550");
    expect(r.body.data.provider_response.smtp_code).toBe(550);
  }, 40_000);
});

describe("in_app without a configuration (production)", () => {
  test("the test and a send both go through the built-in inbox, as the channels page says", async () => {
    expect((await call("POST", "/v1/subscribers", { external_id: "inbox-user", name: "Ana" })).status).toBeLessThan(300);
    const noTo = await call("POST", "/v1/channels/in_app/test");
    expect(noTo.body.data).toMatchObject({ success: true, checked: "configuration" });
    expect(noTo.body.data.message).toContain("built-in inbox");
    const sent = await call("POST", "/v1/channels/in_app/test", { to: "inbox-user" });
    expect(sent.body.data).toMatchObject({ success: true, checked: "delivery" });
    const direct = await call("POST", "/v1/notifications", { channel: "in_app", to: "inbox-user", data: { title: "Hi", body: "there" } });
    expect(direct.status).toBe(202);
    // the other channels without configuration refuse production sends
    const sms = await call("POST", "/v1/notifications", { channel: "sms", to: "+5511912345678", data: { content: "x" } });
    expect([sms.status, sms.body.error.code]).toEqual([422, "channel_not_configured"]);
    const providers = await call("GET", "/v1/providers");
    const inbox = providers.body.data.find((p: any) => p.name === "inbox");
    expect(inbox.built_in).toEqual({ channels: ["in_app"], environments: ["production", "sandbox"] });
    const sandbox = providers.body.data.find((p: any) => p.name === "sandbox");
    expect(sandbox.built_in.environments).toEqual(["sandbox"]);
    expect(sandbox.built_in.channels).not.toContain("in_app");
  }, 40_000);
});
