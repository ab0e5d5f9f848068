// Pure parts of delivery receipts: the providers' signature checks against their published test
// vectors, status mapping, the never-backwards status decision, tracking tokens and the HTML rewrite.
import { describe, expect, test } from "bun:test";
import { generateKeyPairSync, sign } from "node:crypto";
import { planReceipt, workflowRunIdOf, type ReceiptInput } from "../../domain/receipts/apply-receipt";
import { suppressionAddress } from "../../domain/delivery/suppression";
import { createTrackingToken, verifyTrackingToken } from "../../domain/receipts/tracking-token";
import { trackedLinks, withTracking } from "../../domain/delivery/tracking-links";
import { prepareOutbound } from "../../domain/delivery/receipt-links";
import { SendgridProvider, sendgridDefinition, sendgridReceipt, verifySendgridSignature } from "../../providers/email/sendgrid";
import { TwilioProvider, twilioReceipt, verifyTwilioSignature } from "../../providers/sms/twilio";
import { whatsappReceipt } from "../../providers/whatsapp/whatsapp-cloud";

describe("Twilio X-Twilio-Signature", () => {
  // the two examples of Twilio's request-validation snippets (auth token 12345)
  const url = "https://mycompany.com/myapp.php?foo=1&bar=2";
  const params = (n: string) => new URLSearchParams({ CallSid: "CA1234567890ABCDE", Caller: n, Digits: "1234", From: n, To: "+18005551212" });

  test("verifies Twilio's published examples", () => {
    expect(verifyTwilioSignature(url, params("+14158675309"), "RSOYDt4T1cUTdK1PDd93/VVr8B8=", "12345")).toBe(true);
    expect(verifyTwilioSignature(url, params("+14158675310"), "GvWf1cFY/Q7PnoempGyD5oXAezc=", "12345")).toBe(true);
  });

  test("refuses another token, another URL, a changed parameter, a missing signature", () => {
    expect(verifyTwilioSignature(url, params("+14158675309"), "RSOYDt4T1cUTdK1PDd93/VVr8B8=", "12346")).toBe(false);
    expect(verifyTwilioSignature(url + "&x=1", params("+14158675309"), "RSOYDt4T1cUTdK1PDd93/VVr8B8=", "12345")).toBe(false);
    expect(verifyTwilioSignature(url, params("+14158675310"), "RSOYDt4T1cUTdK1PDd93/VVr8B8=", "12345")).toBe(false);
    expect(verifyTwilioSignature(url, params("+14158675309"), null, "12345")).toBe(false);
    expect(verifyTwilioSignature(url, params("+14158675309"), "RSOYDt4T1cUTdK1PDd93/VVr8B8=", "")).toBe(false);
  });

  test("status mapping: sent family, delivered, read, failures with Twilio's error code", () => {
    const r = (s: Record<string, string>) => twilioReceipt(new URLSearchParams({ MessageSid: "SM1", ...s }));
    for (const s of ["queued", "accepted", "sending", "sent"]) expect(r({ MessageStatus: s })?.kind).toBe("sent");
    expect(r({ MessageStatus: "delivered" })?.kind).toBe("delivered");
    expect(r({ MessageStatus: "read" })?.kind).toBe("opened");
    expect(r({ MessageStatus: "undelivered", ErrorCode: "30003" })).toMatchObject({
      kind: "failed",
      error: { code: "twilio_30003", message: expect.stringContaining("unreachable") },
    });
    expect(r({ MessageStatus: "failed" })?.error?.code).toBe("twilio_failed");
    expect(r({ MessageStatus: "receiving" })).toBeNull();
    expect(twilioReceipt(new URLSearchParams({ MessageStatus: "sent" }))).toBeNull();
  });
});

describe("SendGrid signed Event Webhook", () => {
  // the test vector of SendGrid's own eventwebhook package
  const KEY = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEDr2LjtURuePQzplybdC+u4CwrqDqBaWjcMMsTbhdbcwHBcepxo7yAQGhHPTnlvFYPAZFceEu/1FwCM/QmGUhA==";
  const SIG = "MEUCIQCtIHJeH93Y+qpYeWrySphQgpNGNr/U+UyUlBkU6n7RAwIgJTz2C+8a8xonZGi6BpSzoQsbVRamr2nlxFDWYNH2j/0=";
  const PAYLOAD = JSON.stringify({ category: "example_payload", event: "test_event", message_id: "message_id" });

  test("verifies SendGrid's published vector and refuses a changed body, timestamp or key", () => {
    expect(verifySendgridSignature(KEY, PAYLOAD, SIG, "1588788367")).toBe(true);
    expect(verifySendgridSignature(KEY, "payload", SIG, "1588788367")).toBe(false);
    expect(verifySendgridSignature(KEY, PAYLOAD, SIG, "1588788368")).toBe(false);
    const other = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).publicKey.export({ format: "der", type: "spki" }).toString("base64");
    expect(verifySendgridSignature(other, PAYLOAD, SIG, "1588788367")).toBe(false);
    expect(verifySendgridSignature(KEY, PAYLOAD, "not-a-signature", "1588788367")).toBe(false);
    expect(verifySendgridSignature("garbage", PAYLOAD, SIG, "1588788367")).toBe(false);
  });

  test("a key pair made here signs what the check accepts", () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const b64 = publicKey.export({ format: "der", type: "spki" }).toString("base64");
    const body = '[{"event":"delivered"}]\r\n';
    const signature = sign("sha256", Buffer.from("1700000000" + body), privateKey).toString("base64");
    expect(verifySendgridSignature(b64, body, signature, "1700000000")).toBe(true);
  });

  test("the channel setting must be a P-256 public key", () => {
    expect(sendgridDefinition.validate({ api_key: "SG.x" }, { from_email: "a@acme.test", event_webhook_public_key: KEY })).toEqual({});
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ format: "der", type: "spki" }).toString("base64");
    for (const bad of ["nope", rsa]) {
      expect(sendgridDefinition.validate({ api_key: "SG.x" }, { from_email: "a@acme.test", event_webhook_public_key: bad })).toHaveProperty([
        "settings.event_webhook_public_key",
      ]);
    }
    expect(sendgridDefinition.validate({ api_key: "SG.x" }, { from_email: "a@acme.test", track_opens: "yes" })).toHaveProperty(["settings.track_opens"]);
  });

  test("event mapping: message id before the first dot, hard and soft bounces, drops, engagement", () => {
    const e = (event: string, extra: Record<string, unknown> = {}) =>
      sendgridReceipt({ event, sg_message_id: "W86EgYT6SQKk0lRflfLRsA.filter0425p1las1-16816-5A023E36-1.0", timestamp: 1700000000, sg_event_id: "ev1", ...extra });
    expect(e("processed")).toMatchObject({ kind: "sent", messageId: "W86EgYT6SQKk0lRflfLRsA", eventId: "ev1", at: new Date(1700000000 * 1000) });
    expect(e("delivered")?.kind).toBe("delivered");
    expect(e("bounce", { reason: "550 5.1.1 no such user", type: "bounce" })).toMatchObject({ kind: "bounced", bounceReason: "550 5.1.1 no such user", suppress: "bounced" });
    expect(e("bounce", { type: "blocked", reason: "IP blocked" })).not.toHaveProperty("suppress");
    expect(e("dropped", { reason: "Bounced Address" })).toMatchObject({ kind: "bounced", suppress: "bounced" });
    expect(e("dropped", { reason: "Spam Reporting Address" })).toMatchObject({ kind: "bounced", suppress: "complained" });
    expect(e("dropped", { reason: "Unsubscribed Address" })).not.toHaveProperty("suppress");
    expect(e("open", { ip: "203.0.113.9", useragent: "Mail/1" })).toMatchObject({ kind: "opened", ip: "203.0.113.9", userAgent: "Mail/1" });
    expect(e("click", { url: "https://acme.test/a" })).toMatchObject({ kind: "clicked", url: "https://acme.test/a" });
    expect(e("spamreport")).toMatchObject({ kind: "complained", complaintType: "abuse", suppress: "complained" });
    for (const ignored of ["deferred", "unsubscribe", "group_unsubscribe"]) expect(e(ignored)).toBeNull();
    expect(sendgridReceipt({ event: "delivered" })).toBeNull();
  });

  test("WhatsApp statuses on the same path", () => {
    expect(whatsappReceipt({ id: "wamid.1", status: "read", timestamp: "1700000000" })).toMatchObject({ kind: "opened", at: new Date(1700000000 * 1000) });
    expect(whatsappReceipt({ id: "wamid.1", status: "failed", errors: [{ code: 131026, title: "Message undeliverable" }] })).toMatchObject({
      kind: "failed",
      error: { code: "whatsapp_131026", message: "Message undeliverable" },
    });
    expect(whatsappReceipt({ id: "wamid.1", status: "deleted" })).toBeNull();
  });
});

describe("planReceipt: statuses never move backwards", () => {
  const at = new Date("2026-11-24T10:00:00Z");
  const row = (status: string, extra: Record<string, unknown> = {}) => ({
    id: "01936f3e-8b1e-7c4a-9f10-2b3c4d5e6f70",
    status,
    channel: "email",
    recipient: "ana@example.com",
    template_slug: null,
    content: { subject: "Hi" },
    provider: "sendgrid",
    provider_message_id: "abc",
    attempt_count: 1,
    opened_at: null,
    clicked_at: null,
    complained_at: null,
    ...extra,
  });
  const r = (kind: ReceiptInput["kind"], extra: Partial<ReceiptInput> = {}): ReceiptInput => ({ kind, at, providerStatus: kind, source: "test", ...extra });
  const types = (p: ReturnType<typeof planReceipt>) => p.events.map((e) => e.type);

  test("sent -> delivered with the SPEC data; a late sent then changes nothing", () => {
    const p = planReceipt(row("sent"), r("delivered"));
    expect(p.moved).toBe("delivered");
    expect(p.counters).toEqual(["delivered"]);
    expect(p.events).toEqual([
      {
        type: "notification.delivered",
        data: {
          notification: { id: expect.any(String), status: "delivered", channel: "email", to: "ana@example.com", subject: "Hi" },
          delivered_at: at.toISOString(),
          delivery: { delivered_at: at.toISOString(), provider: "sendgrid", message_id: "abc" },
        },
      },
    ]);
    const late = planReceipt(row("delivered"), r("sent"));
    expect(late).toMatchObject({ moved: null, update: null, events: [], counters: [] });
  });

  test("a failure or bounce after delivered moves nothing; a hard bounce still lists the address", () => {
    expect(planReceipt(row("delivered"), r("failed", { error: { code: "twilio_30003", message: "x" } }))).toMatchObject({ moved: null, update: null, events: [] });
    const bounce = planReceipt(row("delivered"), r("bounced", { bounceReason: "550", suppress: "bounced" }));
    expect(bounce).toMatchObject({ moved: null, update: null, events: [], suppress: "bounced" });
    expect(planReceipt(row("failed"), r("delivered")).moved).toBeNull();
    expect(planReceipt(row("bounced"), r("sent")).moved).toBeNull();
  });

  test("sent -> bounced with bounce_reason, counted once; sent -> failed keeps the provider's code", () => {
    const p = planReceipt(row("sent"), r("bounced", { bounceReason: "550 5.1.1 unknown user", suppress: "bounced" }));
    expect(p.moved).toBe("bounced");
    expect(p.counters).toEqual(["bounced"]);
    expect(p.events[0]).toMatchObject({ type: "notification.bounced", data: { bounce_reason: "550 5.1.1 unknown user" } });
    const f = planReceipt(row("sent"), r("failed", { error: { code: "twilio_30003", message: "unreachable" } }));
    expect(f.update?.error).toEqual({ code: "twilio_30003", message: "unreachable" });
    expect(f.events[0]!.data.error).toEqual({ code: "twilio_30003", message: "unreachable", provider: "sendgrid", attempt: 1, will_retry: false });
  });

  test("an open proves delivery: sent -> delivered + opened; the second open changes nothing", () => {
    const p = planReceipt(row("sent"), r("opened", { ip: "203.0.113.9", userAgent: "Mail/1" }));
    expect(p.moved).toBe("delivered");
    expect(types(p)).toEqual(["notification.delivered", "notification.opened"]);
    expect(p.events[1]!.data).toMatchObject({ opened_at: at.toISOString(), ip: "203.0.113.9", user_agent: "Mail/1" });
    expect(p.counters).toEqual(["delivered", "opened"]);
    expect(p.engagement).toMatchObject({ kind: "open", ip: "203.0.113.9" });
    const again = planReceipt(row("delivered", { opened_at: at }), r("opened"));
    expect(again).toMatchObject({ update: null, events: [], counters: [], engagement: null });
  });

  test("every click is recorded and reported; the counter counts the first", () => {
    const first = planReceipt(row("delivered"), r("clicked", { url: "https://acme.test/a", linkIndex: 0 }));
    expect(types(first)).toEqual(["notification.clicked"]);
    expect(first.events[0]!.data).toMatchObject({ clicked_at: at.toISOString(), url: "https://acme.test/a" });
    expect(first.counters).toEqual(["clicked"]);
    const second = planReceipt(row("delivered", { clicked_at: at }), r("clicked", { url: "https://acme.test/b" }));
    expect(types(second)).toEqual(["notification.clicked"]);
    expect(second.counters).toEqual([]);
    expect(second.engagement).toMatchObject({ kind: "click", url: "https://acme.test/b" });
  });

  test("a complaint: complained_at, complaint_type, counted once, the address listed", () => {
    const p = planReceipt(row("delivered"), r("complained", { complaintType: "abuse", suppress: "complained" }));
    expect(types(p)).toEqual(["notification.complained"]);
    expect(p.events[0]!.data.complaint_type).toBe("abuse");
    expect(p).toMatchObject({ counters: ["complained"], suppress: "complained" });
    expect(planReceipt(row("delivered", { complained_at: at }), r("complained", { suppress: "complained" }))).toMatchObject({ events: [], counters: [] });
  });

  test("an erased recipient records no engagement", () => {
    expect(planReceipt(row("sent", { recipient: "[erased]" }), r("opened", { ip: "203.0.113.9" }))).toMatchObject({ update: null, events: [], engagement: null });
    expect(planReceipt(row("sent", { recipient: "[erased]" }), r("complained", { suppress: "complained" })).suppress).toBeNull();
  });

  test("the workflow run a notification belongs to comes from SPEC's idempotency key", () => {
    expect(workflowRunIdOf({ idempotency_key: "wfrun:0193-run:step:2" })).toBe("0193-run");
    expect(workflowRunIdOf({ idempotency_key: "wfrun:r1:step:0:ch:sms" })).toBe("r1");
    expect(workflowRunIdOf({ idempotency_key: null })).toBeNull();
    expect(workflowRunIdOf({ idempotency_key: "client-key" })).toBeNull();
  });
});

describe("suppression addresses", () => {
  test("email lower-cased, FCM token as given, Web Push by endpoint, nothing for sms", () => {
    expect(suppressionAddress("email", " Ana@Example.COM ")).toBe("ana@example.com");
    expect(suppressionAddress("push", "fcm-token:abc")).toBe("fcm-token:abc");
    const sub = { endpoint: "https://push.example/p/1", keys: { p256dh: Buffer.alloc(65, 4).toString("base64url"), auth: Buffer.alloc(16, 1).toString("base64url") } };
    expect(suppressionAddress("push", JSON.stringify(sub))).toBe("https://push.example/p/1");
    expect(suppressionAddress("sms", "+5511912345678")).toBeNull();
    expect(suppressionAddress("email", "[erased]")).toBeNull();
  });
});

describe("tracking tokens and the HTML rewrite", () => {
  const id = "01936f3e-8b1e-7c4a-9f10-2b3c4d5e6f70";

  test("a token names its notification and link; a changed byte or the other kind is refused", () => {
    const t = createTrackingToken("click", id, 3);
    expect(t).toMatch(/^[A-Za-z0-9_-]{48}$/);
    expect(verifyTrackingToken(t, "click")).toEqual({ notificationId: id, linkIndex: 3 });
    expect(verifyTrackingToken(t, "open")).toBeNull();
    const flipped = (t[10] === "A" ? "B" : "A");
    expect(verifyTrackingToken(t.slice(0, 10) + flipped + t.slice(11), "click")).toBeNull();
    expect(verifyTrackingToken("x".repeat(48), "click")).toBeNull();
  });

  test("http(s) links are numbered in order and rewritten; mailto, anchors and relative links are left alone", () => {
    const html =
      '<html><body><p><a href="https://acme.test/a?x=1&amp;y=2">A</a> <a href="mailto:help@acme.test">m</a> ' +
      '<a href="#top">t</a> <a href="/rel">r</a> <A HREF="HTTP://acme.test/b">B</A></p></body></html>';
    expect(trackedLinks(html)).toEqual(["https://acme.test/a?x=1&y=2", "HTTP://acme.test/b"]);
    const out = withTracking(html, id, { opens: true, clicks: true });
    const hrefs = [...out.matchAll(/href="([^"]+)"/gi)].map((m) => m[1]!);
    expect(hrefs.filter((h) => h.includes("/track/click/")).length).toBe(2);
    expect(hrefs).toContain("mailto:help@acme.test");
    expect(hrefs).toContain("#top");
    const second = hrefs.filter((h) => h.includes("/track/click/"))[1]!.split("/track/click/")[1]!;
    expect(verifyTrackingToken(second, "click")).toEqual({ notificationId: id, linkIndex: 1 });
    expect(out).toMatch(/<img src="[^"]+\/track\/open\/[A-Za-z0-9_-]{48}"[^>]*><\/body>/);
  });

  test("opens only, clicks only, and a fragment without <body>", () => {
    const frag = '<p><a href="https://acme.test/a">A</a></p>';
    expect(withTracking(frag, id, { opens: false, clicks: false })).toBe(frag);
    const opens = withTracking(frag, id, { opens: true, clicks: false });
    expect(opens.startsWith(frag)).toBe(true);
    expect(opens).toContain("/track/open/");
    const clicks = withTracking(frag, id, { opens: false, clicks: true });
    expect(clicks).not.toContain("/track/open/");
    expect(clicks).toContain("/track/click/");
  });
});

describe("what the sender adds before the provider call", () => {
  const msg = { notificationId: "01936f3e-8b1e-7c4a-9f10-2b3c4d5e6f70", tenantId: "t", environment: "production", to: "ana@example.com" };

  test("Twilio messages carry StatusCallback for their channel configuration; built-in providers none", () => {
    const out = prepareOutbound({ ...msg, channel: "sms", to: "+5511912345678", content: "hi" }, { provider: "twilio", channelId: "0193-ch", settings: {} });
    expect(out.statusCallbackUrl).toMatch(/\/webhooks\/twilio\/0193-ch$/);
    const form = new TwilioProvider({ credentials: { account_sid: "AC1", auth_token: "x" }, settings: { from: "+14155550100" } }, {}).buildForm(out);
    expect(form.get("StatusCallback")).toBe(out.statusCallbackUrl!);
    expect(prepareOutbound({ ...msg, channel: "sms", content: "hi" }, { provider: "sandbox", channelId: null, settings: {} }).statusCallbackUrl).toBeUndefined();
  });

  test("email tracking only when the channel turns it on; SendGrid's own tracking off for what NMS rewrote", () => {
    const html = '<p><a href="https://acme.test">x</a></p>';
    const email = { ...msg, channel: "email" as const, subject: "s", html };
    expect(prepareOutbound(email, { provider: "smtp", channelId: "c", settings: {} }).html).toBe(html);
    const tracked = prepareOutbound(email, { provider: "sendgrid", channelId: "c", settings: { track_clicks: true } });
    expect(tracked.html).toContain("/track/click/");
    const sg = new SendgridProvider({ credentials: { api_key: "k" }, settings: { from_email: "a@acme.test", track_clicks: true } }, {});
    expect(sg.buildBody(tracked).tracking_settings).toEqual({ click_tracking: { enable: false, enable_text: false } });
    expect(sg.buildBody({ ...tracked, html: undefined, providerTemplateId: "d-1" }).tracking_settings).toBeUndefined();
  });
});
