// Accepted -> delivered through the channel-sender actor on a real runtime host, for every provider
// against its local fake: success, retryable failure (retried, 2 attempts), permanent failure (1 attempt).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import webpush from "web-push";
import { clearFcmTokenCache } from "../../providers/push/fcm";
import { call, createTenant } from "../support/fixtures";
import * as fakeFcm from "../support/fake-fcm";
import * as fakeSendgrid from "../support/fake-sendgrid";
import * as fakeSmtp from "../support/fake-smtp";
import * as fakeTwilio from "../support/fake-twilio";
import * as fakeWebpush from "../support/fake-webpush";
import * as fakeWhatsapp from "../support/fake-whatsapp-cloud";
import { attemptsOf, startDeliveryHost, waitForStatus } from "./delivery-support";

let delivery: Awaited<ReturnType<typeof startDeliveryHost>>;
let sg: fakeSendgrid.FakeSendgrid;
let smtp: fakeSmtp.FakeSmtp;
let tw: fakeTwilio.FakeTwilio;
let wa: fakeWhatsapp.FakeWhatsappCloud;
let fcm: fakeFcm.FakeFcm;
let push: fakeWebpush.FakeWebpush;
const vapid = webpush.generateVAPIDKeys();
const SID = "AC" + "0123456789abcdef".repeat(2);

// secret values that must never appear in an API response body
const SECRETS = {
  sendgrid: "SG.secret-sendgrid-key-123",
  smtpPass: "smtp-secret-pass-456",
  twilio: "twilio-secret-token-789",
  waToken: "wa-secret-access-token",
  waApp: "wa-secret-app-secret",
};

interface Case {
  name: string;
  channel: string;
  provider: string;
  /** created per test file tenant */
  configure: () => { credentials: Record<string, unknown>; settings: Record<string, unknown> };
  to: () => string;
  data: Record<string, unknown>;
  /** status after a successful provider call */
  okStatus: string;
  scriptRetryable: () => void;
  scriptPermanent: () => void;
  calls: () => number;
  /** the fake only records accepted messages (SMTP): refused attempts are not counted by calls() */
  acceptedOnly?: boolean;
  reset: () => void;
}

let fcmAccount: fakeFcm.ServiceAccountJson;
let subscription: fakeWebpush.PushSubscriptionJson;

const cases: Case[] = [
  {
    name: "sendgrid",
    channel: "email",
    provider: "sendgrid",
    configure: () => ({ credentials: { api_key: SECRETS.sendgrid }, settings: { from_email: "hello@acme.test", base_url: sg.url } }),
    to: () => "ana@example.com",
    data: { subject: "Hi", content: "Hello" },
    okStatus: "sent",
    scriptRetryable: () => sg.script({ kind: "server_error", status: 503 }),
    scriptPermanent: () => sg.script({ kind: "error", status: 400, message: "bad request" }),
    calls: () => sg.requests.filter((r) => r.kind === "send").length,
    reset: () => sg.reset(),
  },
  {
    name: "smtp",
    channel: "email",
    provider: "smtp",
    configure: () => ({
      credentials: {},
      settings: { host: smtp.host, port: smtp.port, secure: false, from_email: "news@acme.test" },
    }),
    to: () => "bruno@example.com",
    data: { subject: "Hi", content: "Hello", html_body: "<p>Hello</p>" },
    okStatus: "sent",
    scriptRetryable: () => smtp.script({ kind: "temp_fail" }),
    scriptPermanent: () => smtp.script({ kind: "reject" }),
    calls: () => smtp.messages.length,
    acceptedOnly: true,
    reset: () => smtp.reset(),
  },
  {
    name: "twilio (sms)",
    channel: "sms",
    provider: "twilio",
    configure: () => ({ credentials: { account_sid: SID, auth_token: SECRETS.twilio }, settings: { from: "+14155550100", base_url: tw.url } }),
    to: () => "+5511912345678",
    data: { content: "Your code is 1234" },
    okStatus: "sent",
    scriptRetryable: () => tw.script({ kind: "server_error" }),
    scriptPermanent: () => tw.script({ kind: "error", status: 400, code: 21211, message: "Invalid 'To' Phone Number" }),
    calls: () => tw.requests.filter((r) => r.kind === "send").length,
    reset: () => tw.reset(),
  },
  {
    name: "twilio (whatsapp)",
    channel: "whatsapp",
    provider: "twilio",
    configure: () => ({ credentials: { account_sid: SID, auth_token: SECRETS.twilio }, settings: { from: "+14155550100", base_url: tw.url } }),
    to: () => "+5511912345679",
    data: { content: "Olá via Twilio" },
    okStatus: "sent",
    scriptRetryable: () => tw.script({ kind: "rate_limit" }),
    scriptPermanent: () => tw.script({ kind: "error", status: 400, code: 63016, message: "outside the allowed window" }),
    calls: () => tw.requests.filter((r) => r.kind === "send").length,
    reset: () => tw.reset(),
  },
  {
    name: "whatsapp_cloud",
    channel: "whatsapp",
    provider: "whatsapp_cloud",
    configure: () => ({
      credentials: { access_token: SECRETS.waToken, app_secret: SECRETS.waApp },
      settings: { phone_number_id: "106540352242922", verify_token: "vt-delivery", base_url: wa.url },
    }),
    to: () => "+5511912345678",
    data: { content: "Olá" },
    okStatus: "sent",
    scriptRetryable: () => wa.script({ kind: "server_error" }),
    scriptPermanent: () => wa.script({ kind: "error", status: 400 }),
    calls: () => wa.requests.filter((r) => r.kind === "send").length,
    reset: () => wa.reset(),
  },
  {
    name: "fcm",
    channel: "push",
    provider: "fcm",
    configure: () => ({
      credentials: { service_account: fcmAccount },
      settings: { project_id: "demo-project", base_url: fcm.url, token_url: fcm.tokenUrl },
    }),
    to: () => "fcm-device-token-" + "x".repeat(40),
    data: { title: "Shipped", body: "Arrives tomorrow" },
    okStatus: "sent",
    scriptRetryable: () => fcm.script({ kind: "server_error" }),
    scriptPermanent: () => fcm.script({ kind: "error", status: 400, code: "INVALID_ARGUMENT" }),
    calls: () => fcm.requests.filter((r) => r.kind === "send").length,
    reset: () => {
      fcm.reset();
      clearFcmTokenCache();
    },
  },
  {
    name: "webpush",
    channel: "push",
    provider: "webpush",
    configure: () => ({ credentials: { vapid_public_key: vapid.publicKey, vapid_private_key: vapid.privateKey }, settings: { subject: "mailto:ops@acme.test" } }),
    to: () => JSON.stringify(subscription),
    data: { title: "Hello", body: "From web push" },
    okStatus: "sent",
    scriptRetryable: () => push.script({ kind: "server_error" }),
    scriptPermanent: () => push.script({ kind: "error", status: 400 }),
    calls: () => push.requests.filter((r) => r.kind === "send" || r.method === "POST").length,
    reset: () => push.reset(),
  },
];

beforeAll(async () => {
  delivery = await startDeliveryHost();
  [sg, smtp, tw, wa, fcm, push] = await Promise.all([
    fakeSendgrid.start(),
    fakeSmtp.start(),
    fakeTwilio.start(),
    fakeWhatsapp.start(),
    fakeFcm.start(),
    fakeWebpush.start(),
  ]);
  fcmAccount = await fcm.createServiceAccount({ projectId: "demo-project" });
  subscription = push.createSubscription();
});

afterAll(async () => {
  await delivery.stop();
  await Promise.all([sg.stop(), smtp.stop(), tw.stop(), wa.stop(), fcm.stop(), push.stop()]);
});

async function setup(c: Case) {
  const t = await createTenant();
  const cfg = c.configure();
  const r = await call("POST", "/v1/channels", { key: t.secretKey, body: { channel: c.channel, provider: c.provider, ...cfg } });
  expect(r.status).toBe(201);
  return t;
}

async function sendOne(key: string, c: Case) {
  const r = await call("POST", "/v1/notifications", { key, body: { channel: c.channel, to: c.to(), data: c.data } });
  expect(r.status).toBe(202);
  return r.body.data.id as string;
}

for (const c of cases) {
  describe(`${c.name} through the channel sender`, () => {
    let t: Awaited<ReturnType<typeof createTenant>>;
    beforeAll(async () => {
      t = await setup(c);
    });

    test(`success: ${c.okStatus}, one attempt with status success, provider ${c.provider}`, async () => {
      c.reset();
      const id = await sendOne(t.secretKey, c);
      const row = await waitForStatus(id, [c.okStatus, "failed"]);
      expect(row!.status).toBe(c.okStatus);
      expect(row!.provider).toBe(c.provider);
      expect(row!.provider_message_id).toBeTruthy();
      expect(row!.sent_at).toBeTruthy();
      const attempts = await attemptsOf(id);
      expect(attempts.map((a) => [a.attempt_number, a.status, a.provider])).toEqual([[1, "success", c.provider]]);
      expect(c.calls()).toBe(1);
    });

    test("retryable failure: retried with back-off, then succeeds (2 attempts)", async () => {
      c.reset();
      c.scriptRetryable();
      const id = await sendOne(t.secretKey, c);
      const row = await waitForStatus(id, [c.okStatus, "failed"]);
      expect(row!.status).toBe(c.okStatus);
      const attempts = await attemptsOf(id);
      expect(attempts.map((a) => [a.attempt_number, a.status])).toEqual([
        [1, "failure"],
        [2, "success"],
      ]);
      expect(attempts[0]!.error).toBeTruthy();
      expect(c.calls()).toBe(c.acceptedOnly ? 1 : 2);
    });

    test("permanent failure: failed with error {code, message}, 1 attempt", async () => {
      c.reset();
      c.scriptPermanent();
      const id = await sendOne(t.secretKey, c);
      const row = await waitForStatus(id, ["failed", c.okStatus]);
      expect(row!.status).toBe("failed");
      expect(row!.failed_at).toBeTruthy();
      expect(row!.error.code).toBeTruthy();
      const attempts = await attemptsOf(id);
      expect(attempts.map((a) => [a.attempt_number, a.status])).toEqual([[1, "failure"]]);
      expect(c.calls()).toBe(c.acceptedOnly ? 0 : 1);
      const detail = await call("GET", `/v1/notifications/${id}`, { key: t.secretKey });
      expect(detail.body.data.error).toMatchObject({ code: row!.error.code });
    });

    test("credentials appear in no response body (detail, attempts, list, channel)", async () => {
      const list = await call("GET", "/v1/notifications?limit=100", { key: t.secretKey });
      const texts = [list.text, (await call("GET", `/v1/channels/${c.channel}`, { key: t.secretKey })).text];
      for (const n of list.body.data) {
        texts.push((await call("GET", `/v1/notifications/${n.id}`, { key: t.secretKey })).text);
        texts.push((await call("GET", `/v1/notifications/${n.id}/attempts`, { key: t.secretKey })).text);
      }
      const all = texts.join("\n");
      for (const s of [...Object.values(SECRETS), vapid.privateKey, fcmAccount.private_key.slice(40, 80)]) expect(all).not.toContain(s);
    });
  });
}

describe("email headers", () => {
  test("List-Unsubscribe (https URL to /unsubscribe/:token) and List-Unsubscribe-Post: List-Unsubscribe=One-Click", async () => {
    const c = cases[1]!; // smtp: the raw message shows the headers as sent
    const t = await setup(c);
    await call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id: "hdr-1", email: "hdr@example.com" } });
    c.reset();
    const r = await call("POST", "/v1/notifications", { key: t.secretKey, body: { channel: "email", to: "hdr@example.com", data: c.data } });
    const row = await waitForStatus(r.body.data.id, ["sent", "failed"]);
    expect(row!.status).toBe("sent");
    const [msg] = await smtp.waitForMessages(1);
    const { headers } = fakeSmtp.parseRawMessage(msg!.raw);
    expect(headers["list-unsubscribe"]?.[0]).toMatch(/^<https?:\/\/[^>]+\/unsubscribe\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+>$/);
    expect(headers["list-unsubscribe-post"]?.[0]).toBe("List-Unsubscribe=One-Click");
  });
});

describe("built-in providers", () => {
  test("sandbox without configuration: delivered; 'fail…' fails (1 attempt); 'bounce…' bounces", async () => {
    const t = await createTenant();
    const ok = await call("POST", "/v1/notifications", { key: t.sandboxKey, body: { channel: "sms", to: "+5511912345678", data: { content: "x" } } });
    const fail = await call("POST", "/v1/notifications", { key: t.sandboxKey, body: { channel: "email", to: "fail@example.com", data: { subject: "s", content: "x" } } });
    const bounce = await call("POST", "/v1/notifications", { key: t.sandboxKey, body: { channel: "email", to: "bounce@example.com", data: { subject: "s", content: "x" } } });
    const a = await waitForStatus(ok.body.data.id, ["delivered", "failed"]);
    expect(a!.status).toBe("delivered");
    expect(a!.delivered_at).toBeTruthy();
    expect(a!.provider).toBe("sandbox");
    const b = await waitForStatus(fail.body.data.id, ["failed", "delivered"]);
    expect(b!.status).toBe("failed");
    expect((await attemptsOf(b!.id)).length).toBe(1);
    const c = await waitForStatus(bounce.body.data.id, ["bounced", "delivered", "failed"]);
    expect(c!.status).toBe("bounced");
    expect(c!.bounced_at).toBeTruthy();
    const d = await call("GET", `/v1/notifications/${ok.body.data.id}`, { key: t.sandboxKey });
    expect(d.body.data.status).toBe("delivered");
    expect(d.body.data.attempts).toHaveLength(1);
    expect(d.body.data.attempts[0]).toMatchObject({ attempt_number: 1, status: "success", provider: "sandbox" });
  });

  test("inbox (in_app default): stored in the subscriber's inbox -> delivered", async () => {
    const t = await createTenant();
    await call("POST", "/v1/subscribers", { key: t.secretKey, body: { external_id: "inbox-user" } });
    const ok = await call("POST", "/v1/notifications", { key: t.secretKey, body: { channel: "in_app", to: "inbox-user", data: { title: "T", body: "B" } } });
    expect(ok.status).toBe(202);
    const row = await waitForStatus(ok.body.data.id, ["delivered", "failed"]);
    expect(row!.status).toBe("delivered");
    expect(row!.provider).toBe("inbox");
    const inbox = await call("GET", "/v1/subscribers/inbox-user/inbox", { key: t.secretKey });
    if (inbox.status === 200) expect(JSON.stringify(inbox.body)).toContain(ok.body.data.id);
  });
});
