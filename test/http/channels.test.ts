// HTTP tests of /v1/channels (SPEC Endpoints "Channels", DESIGN.md 6 response, DESIGN.md 7 table):
// every route and status, and that no response body ever carries a submitted credential.
import { beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import webpush from "web-push";
import { DecryptionError, defaultKeyring } from "../../store/cipher";
import { sql } from "../../store/db";
import { invalidateChannelConfig, listConfigsForProvider, loadChannelConfig } from "../../store/channels";
import { call, createKey, createTenant } from "../support/fixtures";

// every value below is a secret: none may appear in any response body
const TWILIO = { account_sid: `AC${"0123456789abcdef".repeat(2)}`, auth_token: `twilio-token-${crypto.randomUUID()}` };
const SENDGRID = { api_key: `SG.secret-${crypto.randomUUID()}` };
const SMTP = { username: "mailer", password: `smtp-pass-${crypto.randomUUID()}` };
const WHATSAPP = { access_token: `EAAG-${crypto.randomUUID()}`, app_secret: `app-secret-${crypto.randomUUID()}` };
const FCM = {
  service_account: {
    type: "service_account",
    client_email: "push@example-project.iam.gserviceaccount.com",
    private_key_id: `kid-${crypto.randomUUID()}`,
    private_key: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  },
};
const vapid = webpush.generateVAPIDKeys();
const WEBPUSH = { vapid_public_key: vapid.publicKey, vapid_private_key: vapid.privateKey };

const SECRETS: string[] = [
  TWILIO.auth_token,
  SENDGRID.api_key,
  SMTP.password,
  WHATSAPP.access_token,
  WHATSAPP.app_secret,
  FCM.service_account.private_key,
  FCM.service_account.private_key_id,
  WEBPUSH.vapid_private_key,
];

/** SPEC: credentials are never returned by any response: search the serialized body for every secret */
function expectNoSecrets(r: { text: string }) {
  for (const s of SECRETS) expect(r.text.includes(s)).toBe(false);
  // the private key also in its JSON-escaped form
  expect(r.text.includes(JSON.stringify(FCM.service_account.private_key).slice(1, 60))).toBe(false);
}

const CONFIGS = {
  sms: { channel: "sms", provider: "twilio", credentials: TWILIO, settings: { from: "+14155550100" } },
  email: { channel: "email", provider: "sendgrid", credentials: SENDGRID, settings: { from_email: "no-reply@example.com", from_name: "Example" } },
  whatsapp: {
    channel: "whatsapp",
    provider: "whatsapp_cloud",
    credentials: WHATSAPP,
    settings: { phone_number_id: "1234567890", verify_token: "verify-me" },
  },
  push: { channel: "push", provider: "fcm", credentials: FCM, settings: { project_id: "example-project" } },
  in_app: { channel: "in_app", provider: "inbox" },
} as const;

// DESIGN.md 6 fields plus `failover` (issue 23: backup providers, credential key names only)
const DESIGN_FIELDS = ["active", "channel", "created_at", "credential_keys", "failover", "id", "provider", "settings", "updated_at"];

let t: Awaited<ReturnType<typeof createTenant>>;
let key: string;

beforeAll(async () => {
  t = await createTenant();
  key = t.secretKey;
  for (const body of Object.values(CONFIGS)) {
    const r = await call("POST", "/v1/channels", { key, body });
    if (r.status !== 201) throw new Error(`setup ${body.channel}: ${r.status} ${r.text}`);
  }
});

describe("POST /v1/channels", () => {
  test("201 with the DESIGN.md 6 channel response: no credentials, only credential_keys", async () => {
    const fresh = await createTenant();
    const r = await call("POST", "/v1/channels", { key: fresh.secretKey, body: CONFIGS.sms });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body.data).sort()).toEqual(DESIGN_FIELDS);
    expect(r.body.data).toMatchObject({
      channel: "sms",
      provider: "twilio",
      settings: { from: "+14155550100" },
      active: true,
      credential_keys: ["account_sid", "auth_token"],
    });
    expect(r.body.data.created_at).toMatch(/Z$/);
    expectNoSecrets(r);
  });

  test("every provider of the DESIGN.md 7 table is accepted on its channel (setup created them)", async () => {
    const r = await call("GET", "/v1/channels", { key });
    expect(r.body.data.map((c: any) => [c.channel, c.provider, c.credential_keys])).toEqual([
      ["email", "sendgrid", ["api_key"]],
      ["in_app", "inbox", []],
      ["push", "fcm", ["service_account"]],
      ["sms", "twilio", ["account_sid", "auth_token"]],
      ["whatsapp", "whatsapp_cloud", ["access_token", "app_secret"]],
    ]);
  });

  test("smtp, webpush and twilio-on-whatsapp are accepted too; sandbox is accepted on any channel", async () => {
    const a = await createTenant();
    const bodies = [
      { channel: "email", provider: "smtp", credentials: SMTP, settings: { host: "smtp.example.com", port: 587, from_email: "a@example.com" } },
      { channel: "push", provider: "webpush", credentials: WEBPUSH, settings: { subject: "mailto:ops@example.com" } },
      { channel: "whatsapp", provider: "twilio", credentials: TWILIO, settings: { from: "whatsapp:+14155550100" } },
      { channel: "sms", provider: "sandbox" },
      { channel: "in_app", provider: "sandbox" },
    ];
    for (const body of bodies) {
      const r = await call("POST", "/v1/channels", { key: a.secretKey, body });
      expect([body.provider, r.status]).toEqual([body.provider, 201]);
      expectNoSecrets(r);
    }
  });

  test("409 channel_already_configured for a second configuration of the channel", async () => {
    const r = await call("POST", "/v1/channels", { key, body: CONFIGS.sms });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("channel_already_configured");
    expectNoSecrets(r);
  });

  test("the other environment and another tenant are separate: same channel is 201 there", async () => {
    const sb = await call("POST", "/v1/channels", { key: t.sandboxKey, body: CONFIGS.sms });
    expect(sb.status).toBe(201);
    const other = await createTenant();
    expect((await call("POST", "/v1/channels", { key: other.secretKey, body: CONFIGS.sms })).status).toBe(201);
  });

  test("422 when the provider does not serve the channel (inbox is in_app only, twilio not email)", async () => {
    const a = await createTenant();
    for (const body of [
      { channel: "sms", provider: "inbox" },
      { channel: "email", provider: "twilio", credentials: TWILIO, settings: { from: "+14155550100" } },
      { channel: "push", provider: "sendgrid", credentials: SENDGRID, settings: { from_email: "a@example.com" } },
    ]) {
      const r = await call("POST", "/v1/channels", { key: a.secretKey, body });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
      expect(r.body.error.details.provider[0]).toContain(`does not serve the ${body.channel} channel`);
      expectNoSecrets(r);
    }
  });

  test("422 for an unknown provider or channel", async () => {
    const a = await call("POST", "/v1/channels", { key, body: { channel: "sms", provider: "carrier-pigeon" } });
    expect(a.status).toBe(422);
    expect(Object.keys(a.body.error.details)).toEqual(["provider"]);
    const b = await call("POST", "/v1/channels", { key, body: { channel: "fax", provider: "sandbox" } });
    expect(b.status).toBe(422);
    expect(Object.keys(b.body.error.details)).toEqual(["channel"]);
    const c = await call("POST", "/v1/channels", { key, body: { provider: "sandbox" } });
    expect(c.status).toBe(422);
  });

  test("provider validation: 422 details name fields like credentials.account_sid and never echo values", async () => {
    const a = await createTenant();
    const badSid = `not-a-sid-${crypto.randomUUID()}`;
    const r = await call("POST", "/v1/channels", {
      key: a.secretKey,
      body: { channel: "sms", provider: "twilio", credentials: { account_sid: badSid }, settings: { from: "12345" } },
    });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.error.details).sort()).toEqual(["credentials.account_sid", "credentials.auth_token", "settings.from"]);
    expect(r.text.includes(badSid)).toBe(false);
    const e = await call("POST", "/v1/channels", {
      key: a.secretKey,
      body: { channel: "email", provider: "sendgrid", credentials: {}, settings: { from_email: "nope" } },
    });
    expect(e.status).toBe(422);
    expect(Object.keys(e.body.error.details).sort()).toEqual(["credentials.api_key", "settings.from_email"]);
  });

  test("settings.timeout_ms that is not an integer of milliseconds -> 422 naming it", async () => {
    const a = await createTenant();
    const r = await call("POST", "/v1/channels", {
      key: a.sandboxKey,
      body: { channel: "email", provider: "sandbox", settings: { timeout_ms: "soon" } },
    });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.error.details)).toEqual(["settings.timeout_ms"]);
  });

  test("422 when credentials or settings are not objects", async () => {
    const r = await call("POST", "/v1/channels", { key, body: { channel: "sms", provider: "twilio", credentials: "raw-secret-string", settings: {} } });
    expect(r.status).toBe(422);
    expect(r.text.includes("raw-secret-string")).toBe(false);
  });

  test("credentials are stored encrypted under the current key id; the row holds no plaintext", async () => {
    const [row] = await sql`select credentials_enc, credentials_key_id, credential_keys from channels
      where tenant_id = ${t.tenant.id} and environment = 'production' and channel = 'sms'`;
    expect(row!.credentials_enc).toStartWith(`v1:${defaultKeyring().currentKeyId}:`);
    expect(row!.credentials_key_id).toBe(defaultKeyring().currentKeyId);
    expect(row!.credentials_enc.includes(TWILIO.auth_token)).toBe(false);
    expect(row!.credential_keys).toEqual(["account_sid", "auth_token"]);
  });

  test("401 without a key; 403 for a read-only key or a publishable key", async () => {
    expect((await call("POST", "/v1/channels", { body: CONFIGS.sms })).status).toBe(401);
    const ro = await createKey(t.tenant.id, { permissions: ["read"] });
    const denied = await call("POST", "/v1/channels", { key: ro.raw, body: CONFIGS.sms });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("insufficient_permissions");
    expect((await call("GET", "/v1/channels", { key: ro.raw })).status).toBe(200);
    const pk = await createKey(t.tenant.id, { keyType: "publishable" });
    expect((await call("GET", "/v1/channels", { key: pk.raw })).status).toBe(403);
  });

  test("the audit log records the change with credential names only", async () => {
    const rows = await sql`select action, metadata from audit_logs where tenant_id = ${t.tenant.id} and resource_type = 'channel' order by inserted_at`;
    expect(rows.map((r) => r.action)).toContain("channel.created");
    const text = JSON.stringify(rows);
    for (const s of SECRETS) expect(text.includes(s)).toBe(false);
    expect(text).toContain("auth_token");
  });
});

describe("GET /v1/channels and /v1/channels/:channel", () => {
  test("list: 200 with every configuration of this environment and no secrets", async () => {
    const r = await call("GET", "/v1/channels", { key });
    expect(r.status).toBe(200);
    expect(r.body.data.length).toBe(5);
    for (const c of r.body.data) expect(Object.keys(c).sort()).toEqual(DESIGN_FIELDS);
    expectNoSecrets(r);
    const sb = await call("GET", "/v1/channels", { key: t.sandboxKey });
    expect(sb.body.data.map((c: any) => c.channel)).toEqual(["sms"]);
  });

  test("by channel name: 200 with no secrets", async () => {
    for (const channel of Object.keys(CONFIGS)) {
      const r = await call("GET", `/v1/channels/${channel}`, { key });
      expect(r.status).toBe(200);
      expect(r.body.data.channel).toBe(channel);
      expectNoSecrets(r);
    }
  });

  test("404 channel_not_found when the channel has no configuration (also for another tenant)", async () => {
    const other = await createTenant();
    const r = await call("GET", "/v1/channels/sms", { key: other.secretKey });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("channel_not_found");
    expect((await call("GET", "/v1/channels/email", { key: t.sandboxKey })).status).toBe(404);
  });

  test("404 channel_not_found for a channel name that does not exist", async () => {
    const r = await call("GET", "/v1/channels/telegram", { key });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("channel_not_found");
  });
});

describe("PUT /v1/channels/:channel", () => {
  let u: Awaited<ReturnType<typeof createTenant>>;
  beforeAll(async () => {
    u = await createTenant();
    await call("POST", "/v1/channels", { key: u.secretKey, body: CONFIGS.sms });
  });

  test("active: false keeps credentials and settings; no secrets in the body", async () => {
    const r = await call("PUT", "/v1/channels/sms", { key: u.secretKey, body: { active: false } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ active: false, provider: "twilio", settings: { from: "+14155550100" }, credential_keys: ["account_sid", "auth_token"] });
    expectNoSecrets(r);
    const cfg = await loadChannelConfig(u.tenant.id, "production", "sms");
    expect(cfg).toMatchObject({ active: false, provider: "twilio", credentials: TWILIO });
    const back = await call("PUT", "/v1/channels/sms", { key: u.secretKey, body: { active: true } });
    expect(back.body.data.active).toBe(true);
  });

  test("credentials are replaced when given; validation runs on the merged result", async () => {
    const newToken = `rotated-${crypto.randomUUID()}`;
    const r = await call("PUT", "/v1/channels/sms", {
      key: u.secretKey,
      body: { credentials: { ...TWILIO, auth_token: newToken }, settings: { from: "+14155550199" } },
    });
    expect(r.status).toBe(200);
    expect(r.text.includes(newToken)).toBe(false);
    expect(r.body.data.settings).toEqual({ from: "+14155550199" });
    expect((await loadChannelConfig(u.tenant.id, "production", "sms"))!.credentials.auth_token).toBe(newToken);
    // merged result invalid: settings replaced without the required `from`
    const bad = await call("PUT", "/v1/channels/sms", { key: u.secretKey, body: { settings: {} } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.error.details)).toEqual(["settings.from"]);
    // partial credentials replace the whole object, so auth_token goes missing
    const partial = await call("PUT", "/v1/channels/sms", { key: u.secretKey, body: { credentials: { account_sid: TWILIO.account_sid } } });
    expect(partial.status).toBe(422);
    expect(Object.keys(partial.body.error.details)).toEqual(["credentials.auth_token"]);
    expect((await loadChannelConfig(u.tenant.id, "production", "sms"))!.credentials.auth_token).toBe(newToken);
  });

  test("switching provider drops the old provider's credentials: new ones are required", async () => {
    const r = await call("PUT", "/v1/channels/sms", { key: u.secretKey, body: { provider: "sandbox", settings: {} } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ provider: "sandbox", credential_keys: [] });
    const back = await call("PUT", "/v1/channels/sms", { key: u.secretKey, body: { provider: "twilio", settings: { from: "+14155550100" } } });
    expect(back.status).toBe(422);
    expect(Object.keys(back.body.error.details).sort()).toEqual(["credentials.account_sid", "credentials.auth_token"]);
    const ok = await call("PUT", "/v1/channels/sms", { key: u.secretKey, body: CONFIGS.sms });
    expect(ok.status).toBe(200);
    expect(ok.body.data.credential_keys).toEqual(["account_sid", "auth_token"]);
    expectNoSecrets(ok);
  });

  test("422 for a provider that does not serve the channel, a body channel that differs, or an unknown path", async () => {
    expect((await call("PUT", "/v1/channels/sms", { key: u.secretKey, body: { provider: "inbox" } })).status).toBe(422);
    const mismatch = await call("PUT", "/v1/channels/sms", { key: u.secretKey, body: { channel: "email" } });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.error.details.channel).toBeDefined();
    expect((await call("PUT", "/v1/channels/fax", { key: u.secretKey, body: {} })).status).toBe(404);
  });

  test("404 channel_not_found when there is nothing to update", async () => {
    const r = await call("PUT", "/v1/channels/email", { key: u.secretKey, body: { active: false } });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("channel_not_found");
  });
});

describe("DELETE /v1/channels/:channel", () => {
  test("204, then 404 on GET and DELETE; the channel can be configured again", async () => {
    const d = await createTenant();
    await call("POST", "/v1/channels", { key: d.secretKey, body: CONFIGS.email });
    expect(await loadChannelConfig(d.tenant.id, "production", "email")).not.toBeNull();
    const r = await call("DELETE", "/v1/channels/email", { key: d.secretKey });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(await loadChannelConfig(d.tenant.id, "production", "email")).toBeNull();
    expect((await call("GET", "/v1/channels/email", { key: d.secretKey })).status).toBe(404);
    expect((await call("DELETE", "/v1/channels/email", { key: d.secretKey })).status).toBe(404);
    expect((await call("POST", "/v1/channels", { key: d.secretKey, body: CONFIGS.email })).status).toBe(201);
  });

  test("404 for an unknown channel name", async () => {
    expect((await call("DELETE", "/v1/channels/fax", { key })).status).toBe(404);
  });
});

describe("POST /v1/channels/:channel/test", () => {
  test("404 channel_not_found without a configuration and for an unknown channel", async () => {
    const x = await createTenant();
    const r = await call("POST", "/v1/channels/sms/test", { key: x.secretKey });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("channel_not_found");
    expect((await call("POST", "/v1/channels/fax/test", { key: x.secretKey })).status).toBe(404);
  });

  test("200 {success: true, message} for a valid configuration without a recipient", async () => {
    const r = await call("POST", "/v1/channels/email/test", { key });
    expect(r.status).toBe(200);
    expect(r.body.data.success).toBe(true);
    expect(typeof r.body.data.message).toBe("string");
    expectNoSecrets(r);
  });

  test("with `to`, sends a test notification with the current configuration; no sender runs here, so no answer comes in time", async () => {
    const r = await call("POST", "/v1/channels/sms/test", { key, body: { to: "+5511999990000" } });
    expect(r.status).toBe(200);
    // the provider's own answers are tested with a sender running (test/integration/channel-test.test.ts)
    expect(r.body.data).toMatchObject({ success: false, checked: "delivery" });
    expect(r.body.data.message).toMatch(/^Queued, but no answer from twilio within \d+ s/);
    expect(r.body.data.notification_id).toBeString();
    expectNoSecrets(r);
    const [n] = await sql`select channel, recipient, status from notifications where id = ${r.body.data.notification_id} and tenant_id = ${t.tenant.id}`;
    expect(n).toMatchObject({ channel: "sms", recipient: "+5511999990000" });
  });

  test("a bad recipient is 422 naming `to`", async () => {
    const r = await call("POST", "/v1/channels/sms/test", { key, body: { to: "not-a-phone" } });
    expect(r.status).toBe(422);
    expect(r.body.error.details.to).toBeDefined();
  });

  test("an inactive configuration reports success: false", async () => {
    const x = await createTenant();
    await call("POST", "/v1/channels", { key: x.secretKey, body: { ...CONFIGS.sms, active: false } });
    const r = await call("POST", "/v1/channels/sms/test", { key: x.secretKey });
    expect(r.status).toBe(200);
    expect(r.body.data.success).toBe(false);
  });

  test("credentials that no longer decrypt (tampered) report success: false without leaking anything", async () => {
    const x = await createTenant();
    await call("POST", "/v1/channels", { key: x.secretKey, body: CONFIGS.whatsapp });
    const [row] = await sql`select credentials_enc from channels where tenant_id = ${x.tenant.id} and channel = 'whatsapp'`;
    const parts = row!.credentials_enc.split(":");
    const ct = Buffer.from(parts[4], "base64");
    ct[0] = ct[0]! ^ 1;
    parts[4] = ct.toString("base64");
    await sql`update channels set credentials_enc = ${parts.join(":")} where tenant_id = ${x.tenant.id} and channel = 'whatsapp'`;
    invalidateChannelConfig();
    const r = await call("POST", "/v1/channels/whatsapp/test", { key: x.secretKey });
    expect(r.status).toBe(200);
    expect(r.body.data.success).toBe(false);
    expectNoSecrets(r);
    expect(await loadChannelConfig(x.tenant.id, "production", "whatsapp").catch((e) => e)).toBeInstanceOf(DecryptionError);
    // the get route does not need the credentials and still answers
    expect((await call("GET", "/v1/channels/whatsapp", { key: x.secretKey })).status).toBe(200);
  });
});

describe("loadChannelConfig (channel sender)", () => {
  test("returns provider, decrypted credentials, settings and active; null when not configured", async () => {
    const cfg = await loadChannelConfig(t.tenant.id, "production", "push");
    expect(cfg).toMatchObject({ provider: "fcm", credentials: FCM, settings: { project_id: "example-project" }, active: true });
    expect(await loadChannelConfig(t.tenant.id, "sandbox", "push")).toBeNull();
  });

  test("the returned config is frozen, so a caller cannot corrupt the shared cache", async () => {
    const cfg = (await loadChannelConfig(t.tenant.id, "production", "sms"))!;
    expect(Object.isFrozen(cfg.credentials)).toBe(true);
    expect(() => {
      (cfg.credentials as any).auth_token = "x";
    }).toThrow();
  });

  test("a change through the API is visible at once in this process (cache invalidated)", async () => {
    const c = await createTenant();
    await call("POST", "/v1/channels", { key: c.secretKey, body: CONFIGS.sms });
    expect((await loadChannelConfig(c.tenant.id, "production", "sms"))!.settings.from).toBe("+14155550100");
    await call("PUT", "/v1/channels/sms", { key: c.secretKey, body: { settings: { from: "+14155550111" } } });
    expect((await loadChannelConfig(c.tenant.id, "production", "sms"))!.settings.from).toBe("+14155550111");
  });

  test("ciphertexts are bound to their row: copied into another tenant's row they do not decrypt", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await call("POST", "/v1/channels", { key: a.secretKey, body: CONFIGS.email });
    await call("POST", "/v1/channels", { key: b.secretKey, body: { ...CONFIGS.email, credentials: { api_key: "SG.other" } } });
    await sql`update channels set credentials_enc = (select credentials_enc from channels where tenant_id = ${a.tenant.id} and channel = 'email')
      where tenant_id = ${b.tenant.id} and channel = 'email'`;
    invalidateChannelConfig();
    expect(await loadChannelConfig(b.tenant.id, "production", "email").catch((e) => e)).toBeInstanceOf(DecryptionError);
  });

  test("listConfigsForProvider finds whatsapp_cloud configurations with their scope", async () => {
    const list = await listConfigsForProvider("whatsapp_cloud");
    const mine = list.find((c) => c.tenantId === t.tenant.id);
    expect(mine).toMatchObject({ environment: "production", channel: "whatsapp", credentials: WHATSAPP });
  });
});

describe("concurrency and idempotency", () => {
  test("two concurrent POSTs for one channel: one 201, one 409 channel_already_configured", async () => {
    const c = await createTenant();
    const results = await Promise.all([
      call("POST", "/v1/channels", { key: c.secretKey, body: CONFIGS.sms }),
      call("POST", "/v1/channels", { key: c.secretKey, body: CONFIGS.sms }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    for (const r of results) expectNoSecrets(r);
  });

  test("a replayed POST (Idempotency-Key) returns the stored first response, still without secrets", async () => {
    const c = await createTenant();
    const headers = { "idempotency-key": `ch-${crypto.randomUUID()}` };
    const first = await call("POST", "/v1/channels", { key: c.secretKey, body: CONFIGS.email, headers });
    const second = await call("POST", "/v1/channels", { key: c.secretKey, body: CONFIGS.email, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expectNoSecrets(second);
  });
});
