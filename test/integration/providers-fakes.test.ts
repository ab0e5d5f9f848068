// The contract of the fake provider servers other test files reuse: scripting order, always(),
// reset(), waitForRequests(), timed hangs, and module-level stop() of every started fake.
import { describe, expect, test } from "bun:test";
import * as fakeSendgrid from "../support/fake-sendgrid";
import * as fakeTwilio from "../support/fake-twilio";
import * as fakeSmtp from "../support/fake-smtp";
import { createProvider } from "../../providers/registry";

const mail = { personalizations: [{ to: [{ email: "a@b.co" }] }], from: { email: "x@y.co" }, subject: "s", content: [{ type: "text/plain", value: "v" }] };
const post = (url: string, body: unknown = mail) =>
  fetch(`${url}/v3/mail/send`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("fake HTTP servers", () => {
  test("script() answers in order, then the default success; always() changes the default", async () => {
    const sg = await fakeSendgrid.start();
    try {
      sg.script({ kind: "server_error" }, { kind: "rate_limit", retryAfter: 4 });
      expect((await post(sg.url)).status).toBe(500);
      const limited = await post(sg.url);
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("4");
      expect((await post(sg.url)).status).toBe(202);
      sg.always({ kind: "error", status: 403, message: "forbidden" });
      expect((await post(sg.url)).status).toBe(403);
      expect((await post(sg.url)).status).toBe(403);
      sg.always(undefined);
      expect((await post(sg.url)).status).toBe(202);
      expect(sg.requests).toHaveLength(6);
      expect(sg.accepted).toHaveLength(2);
      sg.reset();
      expect(sg.requests).toHaveLength(0);
      expect(sg.accepted).toHaveLength(0);
    } finally {
      await sg.stop();
    }
  });

  test("a malformed request gets the provider's own 400 before any script is consumed", async () => {
    const sg = await fakeSendgrid.start();
    try {
      sg.script({ kind: "server_error" });
      const res = await post(sg.url, { personalizations: [] });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { errors: unknown[] }).errors.length).toBeGreaterThan(0);
      expect((await post(sg.url)).status).toBe(500);
    } finally {
      await sg.stop();
    }
  });

  test("hang with ms answers late with success; waitForRequests resolves on arrival", async () => {
    const sg = await fakeSendgrid.start();
    try {
      sg.script({ kind: "hang", ms: 150 });
      const started = Date.now();
      const pending = post(sg.url);
      await sg.waitForRequests(1);
      expect((await pending).status).toBe(202);
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      await expect(sg.waitForRequests(2, { timeoutMs: 100 })).rejects.toThrow("expected 2 requests");
    } finally {
      await sg.stop();
    }
  });

  test("module stop() stops every fake that module started; a hanging request is released", async () => {
    const a = await fakeTwilio.start();
    const b = await fakeTwilio.start();
    a.script({ kind: "hang" });
    const provider = createProvider("twilio", { credentials: { account_sid: "AC" + "1".repeat(32), auth_token: "tok" }, settings: { from: "+14155550100", base_url: a.url } }, { timeoutMs: 5000 });
    const pending = provider.send({ notificationId: "n", tenantId: "t", environment: "e", channel: "sms", to: "+14155550111", content: "x" });
    await a.waitForRequests(1);
    await fakeTwilio.stop();
    const result = await pending;
    expect(result.ok).toBe(false);
    await expect(fetch(`${b.url}/2010-04-01/Accounts/AC1/Messages.json`, { method: "POST" })).rejects.toThrow();
  });
});

describe("fake SMTP server", () => {
  test("scripted outcomes per message in order, recorded headers, module stop()", async () => {
    const smtp = await fakeSmtp.start();
    smtp.script({ kind: "temp_fail" });
    const p = createProvider("smtp", { credentials: {}, settings: { host: smtp.host, port: smtp.port, from_email: "a@acme.test" } }, { timeoutMs: 3000 });
    const msg = { notificationId: "n", tenantId: "t", environment: "e", channel: "email" as const, to: "x@y.test", subject: "Olá", text: "hi", headers: { "X-Test": "1" } };
    expect(await p.send(msg)).toMatchObject({ ok: false, retryable: true });
    expect(await p.send(msg)).toMatchObject({ ok: true });
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.header("x-test")).toBe("1");
    expect(smtp.messages[0]!.header("X-Notification-Id")).toBe("n");
    await fakeSmtp.stop();
    expect(await p.send(msg)).toMatchObject({ ok: false, retryable: true, error: { code: "connection_error" } });
  });
});
