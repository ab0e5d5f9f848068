// POST /v1/channels with the providers of issue 23 (ses, mailgun, postmark, resend, vonage, apns):
// a valid configuration is 201 without its secrets, a bad one 422 validation_failed naming each field.
import { beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { call, createTenant } from "../support/fixtures";

/** per provider: a valid configuration, a broken one, and the detail keys the broken one must name */
const CASES: {
  provider: string;
  channel: string;
  valid: { credentials: Record<string, unknown>; settings: Record<string, unknown> };
  invalid: { credentials: Record<string, unknown>; settings: Record<string, unknown> };
  details: string[];
  secret: string;
}[] = [];

const sesSecret = `ses-secret-${crypto.randomUUID()}`;
CASES.push({
  provider: "ses",
  channel: "email",
  valid: { credentials: { access_key_id: "AKIAIOSFODNN7EXAMPLE", secret_access_key: sesSecret }, settings: { region: "eu-west-1", from_email: "no-reply@acme.com" } },
  invalid: { credentials: { access_key_id: "nope", secret_access_key: sesSecret }, settings: { region: "Mars", from_email: "x" } },
  details: ["credentials.access_key_id", "settings.from_email", "settings.region"],
  secret: sesSecret,
});

const mailgunKey = `key-${crypto.randomUUID()}`;
CASES.push({
  provider: "mailgun",
  channel: "email",
  valid: { credentials: { api_key: mailgunKey, webhook_signing_key: `whk-${crypto.randomUUID()}` }, settings: { domain: "mg.acme.com", from_email: "no-reply@mg.acme.com", region: "eu" } },
  invalid: { credentials: { api_key: mailgunKey, webhook_signing_key: 42 }, settings: { domain: "mg acme", from_email: "no-reply@mg.acme.com", region: "moon" } },
  details: ["credentials.webhook_signing_key", "settings.domain", "settings.region"],
  secret: mailgunKey,
});

const postmarkToken = crypto.randomUUID();
CASES.push({
  provider: "postmark",
  channel: "email",
  valid: { credentials: { server_token: postmarkToken, webhook_username: "nms", webhook_password: "a-long-random-password" }, settings: { from_email: "no-reply@acme.com" } },
  invalid: { credentials: { server_token: postmarkToken, webhook_password: "short" }, settings: { from_email: "no-reply@acme.com", message_stream: "Not A Stream" } },
  details: ["credentials.webhook_password", "credentials.webhook_username", "settings.message_stream"],
  secret: postmarkToken,
});

const resendKey = `re_${crypto.randomUUID().replace(/-/g, "")}`;
CASES.push({
  provider: "resend",
  channel: "email",
  valid: { credentials: { api_key: resendKey, webhook_secret: `whsec_${Buffer.from(crypto.randomUUID()).toString("base64")}` }, settings: { from_email: "no-reply@acme.com" } },
  invalid: { credentials: { api_key: resendKey, webhook_secret: "not-a-secret" }, settings: { from_email: "acme.com" } },
  details: ["credentials.webhook_secret", "settings.from_email"],
  secret: resendKey,
});

const vonageSecret = `vonage-secret-${crypto.randomUUID()}`;
CASES.push({
  provider: "vonage",
  channel: "sms",
  valid: { credentials: { api_key: "a1b2c3d4", api_secret: vonageSecret }, settings: { from: "Acme" } },
  invalid: { credentials: { api_secret: vonageSecret, application_id: "x" }, settings: { from: "not a valid sender id" } },
  details: ["credentials.api_key", "credentials.application_id", "credentials.private_key", "settings.from"],
  secret: vonageSecret,
});

const snsSecret = `sns/${crypto.randomUUID()}`;
CASES.push({
  provider: "sns",
  channel: "sms",
  valid: { credentials: { access_key_id: "AKIAIOSFODNN7EXAMPLE", secret_access_key: snsSecret }, settings: { region: "sa-east-1", sender_id: "Acme" } },
  invalid: { credentials: { access_key_id: "AKIAIOSFODNN7EXAMPLE", secret_access_key: snsSecret }, settings: { sms_type: "Urgent" } },
  details: ["settings.region", "settings.sms_type"],
  secret: snsSecret,
});

const p8 = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
CASES.push({
  provider: "apns",
  channel: "push",
  valid: { credentials: { team_id: "ABCDE12345", key_id: "KEY1234567", private_key: p8 }, settings: { topic: "com.acme.app", environment: "development" } },
  invalid: { credentials: { team_id: "ABCDE12345", key_id: "short", private_key: p8 }, settings: { topic: "acme" } },
  details: ["credentials.key_id", "settings.topic"],
  secret: p8.split("\n")[1]!,
});

let key: string;
beforeAll(async () => {
  key = (await createTenant()).secretKey;
});

describe.each(CASES)("POST /v1/channels provider $provider", (c) => {
  test("422 validation_failed names every bad field and echoes no secret; nothing is stored", async () => {
    const r = await call("POST", "/v1/channels", { key, body: { channel: c.channel, provider: c.provider, ...c.invalid } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_failed");
    expect(Object.keys(r.body.error.details).sort()).toEqual([...c.details].sort());
    expect(r.text.includes(c.secret)).toBe(false);
    expect((await call("GET", `/v1/channels/${c.channel}`, { key })).status).toBe(404);
  });

  test("201 with credential_keys only; GET shows no secret", async () => {
    const r = await call("POST", "/v1/channels", { key, body: { channel: c.channel, provider: c.provider, ...c.valid } });
    expect(r.status).toBe(201);
    expect(r.body.data.provider).toBe(c.provider);
    expect(r.body.data.credential_keys.sort()).toEqual(Object.keys(c.valid.credentials).sort());
    const g = await call("GET", `/v1/channels/${c.channel}`, { key });
    expect(g.status).toBe(200);
    expect(r.text.includes(c.secret) || g.text.includes(c.secret)).toBe(false);
    expect((await call("DELETE", `/v1/channels/${c.channel}`, { key })).status).toBeLessThan(300);
  });
});
