// The provider registry (DESIGN.md 7 table), per-provider validation of credentials and settings
// (422 details keyed "credentials.x" / "settings.x"), the sandbox rules and the inbox provider.
import { describe, expect, test } from "bun:test";
import webpush from "web-push";
import {
  PROVIDER_NAMES,
  UnknownProviderError,
  createProvider,
  getProviderDefinition,
  providersForChannel,
} from "../../providers/registry";
import { DEFAULT_TIMEOUT_MS, type OutboundMessage } from "../../providers/types";
import { timeoutSetting } from "../../providers/config-checks";

function def(name: string) {
  const d = getProviderDefinition(name);
  if (!d) throw new Error(`no provider ${name}`);
  return d;
}

function message(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  return { notificationId: "n1", tenantId: "t1", environment: "sandbox", channel: "email", to: "ana@example.org", text: "hi", ...overrides };
}

describe("registry lookups (DESIGN.md 7 provider table)", () => {
  test("every provider of the table is registered", () => {
    expect([...PROVIDER_NAMES].sort()).toEqual(["apns", "fcm", "inbox", "mailgun", "postmark", "resend", "sandbox", "sendgrid", "ses", "smtp", "sns", "twilio", "vonage", "webpush", "whatsapp_cloud"]);
  });

  test("providersForChannel follows the table; sandbox serves any channel", () => {
    const names = (c: Parameters<typeof providersForChannel>[0]) => providersForChannel(c).map((d) => d.name).sort();
    expect(names("email")).toEqual(["mailgun", "postmark", "resend", "sandbox", "sendgrid", "ses", "smtp"]);
    expect(names("sms")).toEqual(["sandbox", "sns", "twilio", "vonage"]);
    expect(names("whatsapp")).toEqual(["sandbox", "twilio", "whatsapp_cloud"]);
    expect(names("push")).toEqual(["apns", "fcm", "sandbox", "webpush"]);
    expect(names("in_app")).toEqual(["inbox", "sandbox"]);
  });

  test("unknown names: undefined from getProviderDefinition, UnknownProviderError from createProvider", () => {
    expect(getProviderDefinition("no_such_provider")).toBeUndefined();
    expect(() => createProvider("no_such_provider", { credentials: {}, settings: {} })).toThrow(UnknownProviderError);
  });

  test("createProvider returns a provider named like its definition", () => {
    for (const name of PROVIDER_NAMES) {
      expect(createProvider(name, { credentials: {}, settings: {} }).name).toBe(name);
    }
  });

  test("each definition has a positive default rate limit and describes its fields", () => {
    for (const name of PROVIDER_NAMES) {
      const d = def(name);
      expect(d.defaultRateLimitPerSecond).toBeGreaterThan(0);
      for (const f of [...d.credentialFields, ...d.settingFields]) {
        expect(f.name).toMatch(/^[a-z_]+$/);
        expect(f.description.length).toBeGreaterThan(0);
      }
    }
    expect(def("twilio").credentialFields.map((f) => f.name)).toEqual(["account_sid", "auth_token"]);
    expect(def("fcm").credentialFields.map((f) => f.name)).toEqual(["service_account"]);
  });
});

describe("validation: smtp", () => {
  const v = def("smtp").validate;
  test("valid config gives {}", () => {
    expect(v({ username: "u", password: "p" }, { host: "smtp.acme.test", port: 587, secure: false, from_email: "a@acme.test", from_name: "Acme" })).toEqual({});
    expect(v({}, { host: "127.0.0.1", from_email: "a@acme.test" })).toEqual({});
  });
  test("host required, port 1-65535, from_email an email, secure boolean", () => {
    expect(v({}, {})).toEqual({ "settings.host": ["is required"], "settings.from_email": ["is required"] });
    for (const port of [0, 65536, 25.5, "25"]) {
      expect(v({}, { host: "h", from_email: "a@b.co", port })["settings.port"]).toEqual(["must be an integer between 1 and 65535"]);
    }
    expect(v({}, { host: "h", from_email: "nope" })["settings.from_email"]).toEqual(["must be an email address"]);
    expect(v({}, { host: "h", from_email: "a@b.co", secure: "yes" })["settings.secure"]).toEqual(["must be true or false"]);
    expect(v({ password: "p" }, { host: "h", from_email: "a@b.co" })["credentials.username"]).toBeDefined();
  });
});

describe("validation: sendgrid", () => {
  const v = def("sendgrid").validate;
  test("api_key required, from_email must be an email, base_url an http(s) URL", () => {
    expect(v({ api_key: "SG.x" }, { from_email: "a@acme.test" })).toEqual({});
    expect(v({}, { from_email: "not-an-email", base_url: "ftp://x" })).toEqual({
      "credentials.api_key": ["is required"],
      "settings.from_email": ["must be an email address"],
      "settings.base_url": ["must be an absolute http(s) URL"],
    });
    expect(v({ api_key: 42 }, { from_email: "a@acme.test" })["credentials.api_key"]).toEqual(["must be a string"]);
  });
});

describe("validation: twilio", () => {
  const v = def("twilio").validate;
  const sid = "AC" + "a".repeat(32);
  test("account_sid must start with AC, from must be E.164", () => {
    expect(v({ account_sid: sid, auth_token: "t" }, { from: "+14155550100" })).toEqual({});
    expect(v({ account_sid: sid, auth_token: "t" }, { from: "whatsapp:+14155550100" })).toEqual({});
    const errors = v({ account_sid: "XX123", auth_token: "" }, { from: "4155550100" });
    expect(errors["credentials.account_sid"]![0]).toContain("must start with AC");
    expect(errors["credentials.auth_token"]).toEqual(["is required"]);
    expect(errors["settings.from"]![0]).toContain("E.164");
  });
});

describe("validation: whatsapp_cloud", () => {
  const v = def("whatsapp_cloud").validate;
  test("access_token, app_secret, phone_number_id (digits) and verify_token required", () => {
    expect(v({ access_token: "a", app_secret: "s" }, { phone_number_id: "1065403", verify_token: "vt" })).toEqual({});
    expect(v({}, { phone_number_id: "abc" })).toEqual({
      "credentials.access_token": ["is required"],
      "credentials.app_secret": ["is required"],
      "settings.phone_number_id": ["must contain digits only"],
      "settings.verify_token": ["is required"],
    });
  });
});

describe("validation: fcm", () => {
  const v = def("fcm").validate;
  const account = { client_email: "x@p.iam.gserviceaccount.com", private_key: "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n" };
  test("service_account needs client_email and private_key; project_id setting required", () => {
    expect(v({ service_account: account }, { project_id: "p" })).toEqual({});
    expect(v({ service_account: JSON.stringify(account) }, { project_id: "p" })).toEqual({});
    expect(v({}, {})).toEqual({ "credentials.service_account": ["is required"], "settings.project_id": ["is required"] });
    expect(v({ service_account: { client_email: "x@y" } }, { project_id: "p" })["credentials.service_account"]).toEqual([
      "must contain private_key (PEM, PKCS#8)",
    ]);
    expect(v({ service_account: { private_key: account.private_key } }, { project_id: "p" })["credentials.service_account"]).toEqual([
      "must contain client_email",
    ]);
    expect(v({ service_account: "{bad" }, { project_id: "p", token_url: "nope" })).toEqual({
      "credentials.service_account": ["must be the service account key JSON object"],
      "settings.token_url": ["must be an absolute http(s) URL"],
    });
  });
});

describe("validation: webpush", () => {
  const v = def("webpush").validate;
  const keys = webpush.generateVAPIDKeys();
  test("VAPID keys required and well-formed; subject mailto: or https", () => {
    expect(v({ vapid_public_key: keys.publicKey, vapid_private_key: keys.privateKey }, { subject: "mailto:ops@acme.test" })).toEqual({});
    expect(v({}, {})).toEqual({
      "credentials.vapid_public_key": ["is required"],
      "credentials.vapid_private_key": ["is required"],
      "settings.subject": ["is required"],
    });
    const bad = v({ vapid_public_key: "abc", vapid_private_key: keys.publicKey }, { subject: "http://acme.test", ttl_seconds: -1 });
    expect(Object.keys(bad).sort()).toEqual(["credentials.vapid_private_key", "credentials.vapid_public_key", "settings.subject", "settings.ttl_seconds"]);
  });
});

describe("validation: shared settings", () => {
  test("rate_limit_per_second must be a positive number for every provider", () => {
    for (const name of PROVIDER_NAMES) {
      expect(def(name).validate({}, { rate_limit_per_second: 0 })["settings.rate_limit_per_second"]).toBeDefined();
      expect(def(name).validate({}, { rate_limit_per_second: 5 })["settings.rate_limit_per_second"]).toBeUndefined();
    }
  });
  test("timeout_ms must be an integer number of milliseconds for every provider (issue 14: NaN made AbortSignal.timeout throw in send)", () => {
    for (const name of PROVIDER_NAMES) {
      for (const bad of ["abc", "5000", 0, -1, 1.5, Number.NaN, Infinity, 600_001, true, { ms: 5 }]) {
        const errors = def(name).validate({}, { timeout_ms: bad });
        expect([name, bad, errors["settings.timeout_ms"]?.[0]]).toEqual([name, bad, expect.stringContaining("integer number of milliseconds")]);
      }
      for (const good of [1, 2500, 600_000]) expect(def(name).validate({}, { timeout_ms: good })["settings.timeout_ms"]).toBeUndefined();
    }
  });

  test("a saved configuration's unusable timeout_ms falls back to the default instead of reaching AbortSignal.timeout", () => {
    expect(timeoutSetting({ timeout_ms: "abc" })).toBe(DEFAULT_TIMEOUT_MS);
    expect(timeoutSetting({ timeout_ms: -5 })).toBe(DEFAULT_TIMEOUT_MS);
    expect(timeoutSetting({})).toBe(DEFAULT_TIMEOUT_MS);
    expect(timeoutSetting({ timeout_ms: 2500 })).toBe(2500);
  });

  test("inbox and sandbox need no credentials", () => {
    expect(def("inbox").validate({}, {})).toEqual({});
    expect(def("sandbox").validate({}, {})).toEqual({});
  });
});

describe("sandbox provider (DESIGN.md 6: recipients starting `fail` fail, `bounce` bounce)", () => {
  const sandbox = createProvider("sandbox", { credentials: {}, settings: {} });

  test("ordinary recipients are delivered with a sandbox_<uuid> id, on every channel", async () => {
    for (const channel of ["email", "sms", "whatsapp", "push", "in_app"] as const) {
      const r = await sandbox.send(message({ channel, to: "ana@example.org" }));
      expect(r.ok).toBe(true);
      if (!r.ok) continue;
      expect(r.finalStatus).toBe("delivered");
      expect(r.providerMessageId).toMatch(/^sandbox_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
  });

  test("ids differ per send", async () => {
    const a = await sandbox.send(message());
    const b = await sandbox.send(message());
    expect(a.ok && b.ok && a.providerMessageId !== b.providerMessageId).toBe(true);
  });

  test("`fail...` recipients fail permanently", async () => {
    for (const to of ["fail@example.org", "failing-user", "FAIL+1@example.org"]) {
      expect(await sandbox.send(message({ to }))).toMatchObject({ ok: false, retryable: false, error: { code: "sandbox_rejected" } });
    }
  });

  test("`bounce...` recipients are accepted with finalStatus bounced", async () => {
    const r = await sandbox.send(message({ to: "bounce@example.org" }));
    expect(r).toMatchObject({ ok: true, finalStatus: "bounced" });
  });

  test("a recipient merely containing fail is delivered", async () => {
    expect(await sandbox.send(message({ to: "nofail@example.org" }))).toMatchObject({ ok: true, finalStatus: "delivered" });
  });
});

describe("inbox provider (in-app delivery = stored in the inbox)", () => {
  const msg = message({ channel: "in_app", to: "sub_1", title: "Hi", body: "there" });

  test("deliver() is called with the message; its item id is the message id; finalStatus delivered", async () => {
    const seen: OutboundMessage[] = [];
    const p = createProvider("inbox", { credentials: {}, settings: {} }, { inbox: { deliver: async (m) => (seen.push(m), { itemId: "item_1" }) } });
    expect(await p.send(msg)).toEqual({ ok: true, providerMessageId: "item_1", finalStatus: "delivered", response: { item_id: "item_1" } });
    expect(seen).toEqual([msg]);
  });

  test("a thrown error is retryable unless it says permanent", async () => {
    const flaky = createProvider("inbox", { credentials: {}, settings: {} }, { inbox: { deliver: async () => { throw new Error("db down"); } } });
    expect(await flaky.send(msg)).toMatchObject({ ok: false, retryable: true, error: { code: "inbox_error", message: "db down" } });
    const gone = createProvider("inbox", { credentials: {}, settings: {} }, {
      inbox: { deliver: async () => { throw Object.assign(new Error("subscriber erased"), { permanent: true, code: "subscriber_not_found" }); } },
    });
    expect(await gone.send(msg)).toMatchObject({ ok: false, retryable: false, error: { code: "subscriber_not_found" } });
  });

  test("without deps.inbox the send fails permanently instead of throwing", async () => {
    expect(await createProvider("inbox", { credentials: {}, settings: {} }).send(msg)).toMatchObject({
      ok: false,
      retryable: false,
      error: { code: "inbox_unavailable" },
    });
  });
});
