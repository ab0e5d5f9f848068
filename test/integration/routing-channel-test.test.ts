// The channel test with backup providers (issue 23): every provider is tested, the primary as before and
// each backup the same way (connect without sending; with a recipient, a test straight through its adapter).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { freePort } from "../support/dashboard-session";
import * as fakeSendgrid from "../support/fake-sendgrid";
import { start as startSmtp, type FakeSmtp } from "../support/fake-smtp";
import { call, createTenant } from "../support/fixtures";
import { dropTenant } from "./workflow-support";

let smtp: FakeSmtp;
let sg: fakeSendgrid.FakeSendgrid;
const tenants: string[] = [];

beforeAll(async () => {
  smtp = await startSmtp({ auth: { user: "nms", pass: "s3cret-pass" } });
  sg = await fakeSendgrid.start();
});

afterAll(async () => {
  await smtp?.stop();
  await sg?.stop();
  for (const id of tenants) await dropTenant(id);
});

async function tenant() {
  const t = await createTenant();
  tenants.push(t.tenant.id);
  return t;
}

const smtpAt = (port: number) => ({ provider: "smtp", credentials: { username: "nms", password: "s3cret-pass" }, settings: { host: "127.0.0.1", port, secure: false, from_email: "noreply@acme.test" } });

describe("POST /v1/channels/:channel/test with backups", () => {
  test("without a recipient: each provider connects in turn; a backup that cannot be reached makes the test fail, naming it", async () => {
    const t = await tenant();
    const closed = await freePort();
    const created = await call("POST", "/v1/channels", { key: t.secretKey, body: { channel: "email", ...smtpAt(smtp.port), failover: [smtpAt(smtp.port), smtpAt(closed)] } });
    expect(created.status).toBe(201);
    const r = await call("POST", "/v1/channels/email/test", { key: t.secretKey });
    expect(r.status).toBe(200);
    expect(r.body.data.success).toBe(false);
    expect(r.body.data.providers.map((p: any) => [p.role, p.provider, p.success, p.checked])).toEqual([
      ["primary", "smtp", true, "connection"],
      ["failover", "smtp", true, "connection"],
      ["failover", "smtp", false, "connection"],
    ]);
    expect(r.body.data.providers[2].message).toContain("ECONNREFUSED");
    expect(r.body.data.message).toContain("failover smtp");
    expect(r.text.includes("s3cret-pass")).toBe(false);
    expect(smtp.messages.length).toBe(0);
  }, 60_000);

  test("with a recipient: the backup gets a test message through its own adapter and account", async () => {
    const t = await tenant();
    const created = await call("POST", "/v1/channels", {
      key: t.secretKey,
      body: {
        channel: "email",
        provider: "sandbox",
        failover: [{ provider: "sendgrid", credentials: { api_key: "SG.backup-test-key" }, settings: { from_email: "hi@acme.test", base_url: sg.url } }],
      },
    });
    expect(created.status).toBe(201);
    const r = await call("POST", "/v1/channels/email/test", { key: t.secretKey, body: { to: "ana@example.com" } });
    expect(r.status).toBe(200);
    const backup = r.body.data.providers[1];
    expect(backup).toMatchObject({ role: "failover", provider: "sendgrid", success: true, checked: "delivery" });
    const sent = sg.accepted.at(-1)!;
    expect(sent.request.headers.authorization).toBe("Bearer SG.backup-test-key");
    expect(JSON.stringify(sent.body)).toContain("ana@example.com");
    expect(r.text.includes("SG.backup-test-key")).toBe(false);
  }, 60_000);
});
