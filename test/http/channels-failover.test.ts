// HTTP tests of backup providers on /v1/channels (issue 23, docs/routing.md): the failover list on POST and
// PUT, its 422 details by field path, credentials encrypted and never returned, and GET's `providers` with circuits.
import { beforeAll, describe, expect, test } from "bun:test";
import { sql } from "../../store/db";
import { redis } from "../../store/redis";
import { redisKeys } from "../../store/redis-keys";
import { call, createTenant } from "../support/fixtures";

const SID_A = `AC${"0123456789abcdef".repeat(2)}`;
const SID_B = `AC${"fedcba9876543210".repeat(2)}`;
const TOKEN_A = `twilio-a-${crypto.randomUUID()}`;
const TOKEN_B = `twilio-b-${crypto.randomUUID()}`;
const SG_KEY = `SG.backup-${crypto.randomUUID()}`;
const SECRETS = [TOKEN_A, TOKEN_B, SG_KEY];

function expectNoSecrets(r: { text: string }) {
  for (const s of SECRETS) expect(r.text.includes(s)).toBe(false);
}

const SMS = {
  channel: "sms",
  provider: "twilio",
  credentials: { account_sid: SID_A, auth_token: TOKEN_A },
  settings: { from: "+14155550100" },
  failover: [
    { provider: "twilio", credentials: { account_sid: SID_B, auth_token: TOKEN_B }, settings: { from: "+14155550101" } },
    { provider: "sandbox" },
  ],
};

let t: Awaited<ReturnType<typeof createTenant>>;

beforeAll(async () => {
  t = await createTenant();
});

describe("POST /v1/channels with failover", () => {
  test("201: the backups in order with credential_keys, never their credentials; stored encrypted", async () => {
    const r = await call("POST", "/v1/channels", { key: t.secretKey, body: SMS });
    expect(r.status).toBe(201);
    expect(r.body.data.failover).toEqual([
      { provider: "twilio", settings: { from: "+14155550101" }, credential_keys: ["account_sid", "auth_token"] },
      { provider: "sandbox", settings: {}, credential_keys: [] },
    ]);
    expect(r.body.data.provider).toBe("twilio");
    expectNoSecrets(r);
    const [row] = await sql`select failover::text as f from channels where id = ${r.body.data.id}`;
    expect(row!.f.includes(TOKEN_B)).toBe(false);
    expect(row!.f.includes("credentials_enc")).toBe(true);
  });

  test("a channel without backups answers failover: []", async () => {
    const other = await createTenant();
    const r = await call("POST", "/v1/channels", { key: other.secretKey, body: { channel: "email", provider: "sandbox" } });
    expect(r.status).toBe(201);
    expect(r.body.data.failover).toEqual([]);
  });

  test("422 validation_failed with details by path, and nothing stored", async () => {
    const other = await createTenant();
    const bad = await call("POST", "/v1/channels", {
      key: other.secretKey,
      body: {
        channel: "sms",
        provider: "sandbox",
        failover: [{ provider: "sendgrid", credentials: { api_key: SG_KEY } }, { provider: "nope" }, { provider: "twilio", credentials: {} }],
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("validation_failed");
    expect(Object.keys(bad.body.error.details)).toEqual(expect.arrayContaining(["failover[0].provider", "failover[1].provider"]));
    expect(Object.keys(bad.body.error.details).some((k) => k.startsWith("failover[2].credentials"))).toBe(true);
    expectNoSecrets(bad);
    const missing = await call("POST", "/v1/channels", { key: other.secretKey, body: { channel: "sms", provider: "sandbox", failover: [{ settings: {} }] } });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details["failover[0].provider"]).toEqual(["is required"]);
    const tooMany = await call("POST", "/v1/channels", {
      key: other.secretKey,
      body: { channel: "sms", provider: "sandbox", failover: [1, 2, 3, 4].map(() => ({ provider: "sandbox" })) },
    });
    expect(tooMany.status).toBe(422);
    expect(Object.keys(tooMany.body.error.details)).toContain("failover");
    expect((await call("GET", "/v1/channels/sms", { key: other.secretKey })).status).toBe(404);
  });
});

describe("GET /v1/channels/:channel providers", () => {
  test("each provider with its role and circuit (closed, no failures, before any call)", async () => {
    const r = await call("GET", "/v1/channels/sms", { key: t.secretKey });
    expect(r.status).toBe(200);
    expect(r.body.data.providers).toEqual([
      { provider: "twilio", role: "primary", circuit: "closed", opened_at: null, failures: 0, last_error: null },
      { provider: "twilio", role: "failover", circuit: "closed", opened_at: null, failures: 0, last_error: null },
      { provider: "sandbox", role: "failover", circuit: "closed", opened_at: null, failures: 0, last_error: null },
    ]);
    expectNoSecrets(r);
  });

  test("an open circuit in Redis shows as open with when, how many failures and the last answer; the two Twilio entries apart", async () => {
    const [row] = await sql`select id, failover from channels where tenant_id = ${t.tenant.id} and environment = 'production' and channel = 'sms'`;
    const backupId = (row!.failover as { id: string }[])[0]!.id;
    const key = redisKeys.circuit(t.tenant.id, "production", "sms", backupId);
    const at = Date.now() - 1000;
    await redis.hset(key, { state: "open", opened_at: String(at), fails: "5", last_error: "http_503: Service Unavailable" });
    try {
      const r = await call("GET", "/v1/channels/sms", { key: t.secretKey });
      expect(r.body.data.providers[0].circuit).toBe("closed");
      expect(r.body.data.providers[1]).toEqual({
        provider: "twilio",
        role: "failover",
        circuit: "open",
        opened_at: new Date(at).toISOString(),
        failures: 5,
        last_error: "http_503: Service Unavailable",
      });
    } finally {
      await redis.del(key);
    }
  });
});

describe("PUT /v1/channels/:channel failover", () => {
  test("omitted: the backups stay; an entry without credentials keeps its stored ones (and its circuit id)", async () => {
    const before = await sql`select failover from channels where tenant_id = ${t.tenant.id} and channel = 'sms' and environment = 'production'`;
    const ids = (before[0]!.failover as { id: string }[]).map((e) => e.id);
    const keep = await call("PUT", "/v1/channels/sms", { key: t.secretKey, body: { settings: { from: "+14155550199" } } });
    expect(keep.status).toBe(200);
    expect(keep.body.data.failover.map((e: any) => e.provider)).toEqual(["twilio", "sandbox"]);
    const edited = await call("PUT", "/v1/channels/sms", {
      key: t.secretKey,
      body: { failover: [{ provider: "twilio", settings: { from: "+14155550102" } }] },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.data.failover).toEqual([{ provider: "twilio", settings: { from: "+14155550102" }, credential_keys: ["account_sid", "auth_token"] }]);
    expectNoSecrets(edited);
    const after = await sql`select failover from channels where tenant_id = ${t.tenant.id} and channel = 'sms' and environment = 'production'`;
    expect((after[0]!.failover as { id: string }[])[0]!.id).toBe(ids[0]!);
  });

  test("422 for a backup that needs credentials and has none; the stored list is unchanged", async () => {
    const r = await call("PUT", "/v1/channels/sms", { key: t.secretKey, body: { failover: [{ provider: "sendgrid" }] } });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.error.details).some((k) => k.startsWith("failover[0]."))).toBe(true);
    const g = await call("GET", "/v1/channels/sms", { key: t.secretKey });
    expect(g.body.data.failover.map((e: any) => e.provider)).toEqual(["twilio"]);
  });

  test("an empty list removes every backup", async () => {
    const r = await call("PUT", "/v1/channels/sms", { key: t.secretKey, body: { failover: [] } });
    expect(r.status).toBe(200);
    expect(r.body.data.failover).toEqual([]);
    const g = await call("GET", "/v1/channels/sms", { key: t.secretKey });
    expect(g.body.data.providers.map((p: any) => p.role)).toEqual(["primary"]);
  });
});
