// The smtp provider against a real SMTP server (smtp-server): delivery with DKIM and RFC 8058
// List-Unsubscribe headers, 4xx/connection errors retryable, 5xx permanent, deadline -> retryable.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash, createVerify, generateKeyPairSync } from "node:crypto";
import { createServer } from "node:net";
import { createProvider } from "../../providers/registry";
import type { OutboundMessage } from "../../providers/types";
import * as fakeSmtp from "../support/fake-smtp";

let smtp: fakeSmtp.FakeSmtp;

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const dkimPrivatePem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    notificationId: "0190f5c2-7a1b-7c3d-8e4f-000000000001",
    tenantId: "tenant-1",
    environment: "production",
    channel: "email",
    to: "ana@example.org",
    subject: "Your order shipped",
    text: "It is on its way.",
    html: "<p>It is on its way.</p>",
    ...overrides,
  };
}

function provider(settings: Record<string, unknown> = {}, credentials: Record<string, unknown> = {}, timeoutMs = 3000) {
  return createProvider(
    "smtp",
    { credentials, settings: { host: smtp.host, port: smtp.port, secure: false, from_email: "news@mail.acme.test", from_name: "Acme", ...settings } },
    { timeoutMs },
  );
}

/** RFC 6376 relaxed/relaxed verification, enough to prove the signature covers what it claims */
function verifyDkim(raw: string, key: typeof publicKey): { valid: boolean; signed: string[]; d?: string; s?: string } {
  const split = raw.indexOf("\r\n\r\n");
  const headerLines = raw.slice(0, split).replace(/\r\n([ \t])/g, "\r\n$1").split(/\r\n(?![ \t])/);
  const body = raw.slice(split + 4);
  const relaxedHeader = (line: string) => {
    const colon = line.indexOf(":");
    return line.slice(0, colon).trim().toLowerCase() + ":" + line.slice(colon + 1).replace(/\r\n/g, "").replace(/[ \t]+/g, " ").trim();
  };
  const sigLine = headerLines.find((l) => /^dkim-signature:/i.test(l));
  if (!sigLine) return { valid: false, signed: [] };
  const tags = Object.fromEntries(
    sigLine
      .slice(sigLine.indexOf(":") + 1)
      .replace(/\s+/g, "")
      .split(";")
      .filter(Boolean)
      .map((t) => [t.slice(0, t.indexOf("=")), t.slice(t.indexOf("=") + 1)]),
  );
  let canonBody = body
    .split("\r\n")
    .map((l) => l.replace(/[ \t]+/g, " ").replace(/ $/, ""))
    .join("\r\n")
    .replace(/(\r\n)+$/, "");
  if (canonBody !== "") canonBody += "\r\n";
  const bh = createHash("sha256").update(canonBody).digest("base64");
  const signed = String(tags.h).split(":");
  const used = new Set<number>();
  let data = "";
  for (const name of signed) {
    for (let i = headerLines.length - 1; i >= 0; i--) {
      if (!used.has(i) && headerLines[i]!.toLowerCase().startsWith(name.toLowerCase() + ":")) {
        used.add(i);
        data += relaxedHeader(headerLines[i]!) + "\r\n";
        break;
      }
    }
  }
  data += relaxedHeader(sigLine).replace(/b=[^;]*$/, "b=");
  const valid = bh === tags.bh && createVerify("RSA-SHA256").update(data).verify(key, String(tags.b), "base64");
  return { valid, signed: signed.map((s) => s.toLowerCase()), d: tags.d, s: tags.s };
}

beforeAll(async () => {
  smtp = await fakeSmtp.start();
});
afterAll(async () => {
  await smtp.stop();
});
beforeEach(() => smtp.reset());

describe("smtp provider (DESIGN.md 7: host/port/secure, from_email, from_name)", () => {
  test("delivers with from name, subject, text and html; message id is the Message-ID header", async () => {
    const result = await provider().send(message());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.mailFrom).toBe("news@mail.acme.test");
    expect(mail!.rcptTo).toEqual(["ana@example.org"]);
    expect(mail!.header("from")).toMatch(/^"?Acme"? <news@mail\.acme\.test>$/);
    expect(mail!.header("subject")).toBe("Your order shipped");
    expect(mail!.header("message-id")).toBe(result.providerMessageId);
    expect(result.providerMessageId).toBe("<0190f5c2-7a1b-7c3d-8e4f-000000000001@mail.acme.test>");
    expect(mail!.header("content-type")).toContain("multipart/alternative");
    expect(mail!.raw).toContain("It is on its way.");
    expect(String(result.response.smtp_response)).toContain(`queued as ${mail!.queueId}`);
    expect(result.response.accepted).toEqual(["ana@example.org"]);
  });

  test("Emails carry List-Unsubscribe and List-Unsubscribe-Post (DESIGN.md 6), DKIM-signed over both (RFC 8058)", async () => {
    const result = await provider().send(
      message({
        headers: {
          "List-Unsubscribe": "<https://app.acme.test/unsubscribe/tok123>",
          "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
        dkim: { domainName: "mail.acme.test", keySelector: "nms2026", privateKey: dkimPrivatePem },
      }),
    );
    expect(result.ok).toBe(true);
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.header("list-unsubscribe")).toBe("<https://app.acme.test/unsubscribe/tok123>");
    expect(mail!.header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(mail!.header("dkim-signature")).toBeDefined();
    const dkim = verifyDkim(mail!.raw, publicKey);
    expect(dkim.d).toBe("mail.acme.test");
    expect(dkim.s).toBe("nms2026");
    expect(dkim.signed).toContain("list-unsubscribe");
    expect(dkim.signed).toContain("list-unsubscribe-post");
    expect(dkim.signed).toContain("from");
    expect(dkim.valid).toBe(true);
  });

  test("DKIM verification in this test fails for a tampered message (the check can fail)", async () => {
    await provider().send(message({ dkim: { domainName: "mail.acme.test", keySelector: "s1", privateKey: dkimPrivatePem } }));
    const [mail] = await smtp.waitForMessages(1);
    expect(verifyDkim(mail!.raw, publicKey).valid).toBe(true);
    expect(verifyDkim(mail!.raw.replace("Your order shipped", "Your order lost"), publicKey).valid).toBe(false);
  });

  test("without msg.dkim no DKIM-Signature is added", async () => {
    await provider().send(message());
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.header("dkim-signature")).toBeUndefined();
  });

  test("SMTP AUTH uses credentials.username / password", async () => {
    const authed = await fakeSmtp.start({ auth: { user: "mailer", pass: "s3cret" } });
    try {
      const ok = await createProvider(
        "smtp",
        { credentials: { username: "mailer", password: "s3cret" }, settings: { host: authed.host, port: authed.port, from_email: "a@acme.test" } },
        { timeoutMs: 3000 },
      ).send(message());
      expect(ok.ok).toBe(true);
      expect(authed.messages[0]!.user).toBe("mailer");
      const bad = await createProvider(
        "smtp",
        { credentials: { username: "mailer", password: "wrong" }, settings: { host: authed.host, port: authed.port, from_email: "a@acme.test" } },
        { timeoutMs: 3000 },
      ).send(message());
      expect(bad).toMatchObject({ ok: false, retryable: false, error: { code: "smtp_535" } });
      expect(JSON.stringify(bad)).not.toContain("wrong");
    } finally {
      await authed.stop();
    }
  });

  test("5xx reply at DATA is permanent", async () => {
    smtp.script({ kind: "reject", code: 554, message: "5.7.1 Message rejected as spam" });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "smtp_554" } });
    if (!result.ok) expect(result.response?.smtp_code).toBe(554);
    expect(smtp.messages).toHaveLength(0);
  });

  test("5xx reply at RCPT (unknown user) is permanent", async () => {
    smtp.script({ kind: "reject", code: 550, stage: "rcpt" });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "smtp_550" } });
  });

  test("4xx reply at DATA (greylisting) is retryable", async () => {
    smtp.script({ kind: "temp_fail", code: 451 });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, error: { code: "smtp_451" } });
  });

  test("4xx reply at RCPT is retryable", async () => {
    smtp.script({ kind: "temp_fail", code: 452, stage: "rcpt", message: "4.2.2 Mailbox full" });
    const result = await provider().send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, error: { code: "smtp_452" } });
  });

  test("retryable then success: the second attempt is delivered", async () => {
    smtp.script({ kind: "temp_fail" }, { kind: "accept" });
    const p = provider();
    expect((await p.send(message())).ok).toBe(false);
    expect((await p.send(message())).ok).toBe(true);
    expect(smtp.messages).toHaveLength(1);
  });

  test("connection refused is retryable", async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const result = await provider({ port }).send(message());
    expect(result).toMatchObject({ ok: false, retryable: true, error: { code: "connection_error" } });
  });

  test("a server that never answers DATA hits the deadline: retryable timeout", async () => {
    smtp.script({ kind: "hang" });
    const started = Date.now();
    const result = await provider({}, {}, 400).send(message());
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result).toMatchObject({ ok: false, retryable: true });
    if (!result.ok) expect(["timeout", "connection_error"]).toContain(result.error.code);
  });

  test("a caller's abort signal cancels the send as retryable", async () => {
    smtp.script({ kind: "hang" });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const result = await provider({}, {}, 5000).send(message(), controller.signal);
    expect(result).toMatchObject({ ok: false, retryable: true, error: { code: "aborted" } });
  });

  test("an email without text or html is refused before connecting", async () => {
    const result = await provider().send(message({ text: undefined, html: undefined, content: undefined }));
    expect(result).toMatchObject({ ok: false, retryable: false, error: { code: "empty_content" } });
  });
});
