// /v1/domains through app.handle against a local DNS server the test controls (dns2): add with
// the records to publish, verification, each health status, the forced-check limit, alerts, audit, isolation.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkDomain } from "../../domain/sending-domains/health";
import { sql } from "../../store/db";
import { redis } from "../../store/redis";
import { rateLimitNames, redisKey } from "../../store/redis-keys";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import { call, createKey, createTenant } from "../support/fixtures";

const SPF_INCLUDE = "spf.nms-mail.example";
let dns: FakeDns;
let a: Awaited<ReturnType<typeof createTenant>>;
let b: Awaited<ReturnType<typeof createTenant>>;
const run = Math.random().toString(36).slice(2, 8);
/** a fresh name per test and run: the fake DNS server is shared by the file */
const name = (label: string) => `${label}-${run}.com`;

type Records = { txt: Rec; spf: Rec; dkim: Rec; dmarc: Rec };
type Rec = { name: string; type: string; value: string };

async function add(domain: string, key = a.secretKey) {
  const r = await call("POST", "/v1/domains", { key, body: { domain } });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; domain: string; status: string; dns_records: Records };
}

/** Publishes what the service asked for (each record optional). */
function publish(r: Records, which: Partial<Record<keyof Records, boolean>> = { txt: true, spf: true, dkim: true, dmarc: true }) {
  for (const k of ["txt", "dkim", "dmarc"] as const) if (which[k]) dns.setTxt(r[k].name, r[k].value);
  if (which.spf) dns.setTxt(r.spf.name, r.spf.value, "google-site-verification=unrelated");
}

async function auditOf(resourceId: string): Promise<{ action: string; actor_type: string; metadata: Record<string, unknown> }[]> {
  const rows = await sql`select action, actor_type, metadata from audit_logs where tenant_id = ${a.tenant.id} and resource_id = ${resourceId} order by inserted_at`;
  return rows.map((r) => ({ action: r.action, actor_type: r.actor_type, metadata: r.metadata }));
}

beforeAll(async () => {
  dns = await startFakeDns();
  process.env.DNS_SERVERS = dns.server;
  process.env.SPF_INCLUDE = SPF_INCLUDE;
  a = await createTenant();
  b = await createTenant();
});

afterAll(async () => {
  const ids = await sql<{ id: string }[]>`delete from sending_domains where tenant_id in (${a.tenant.id}, ${b.tenant.id}) returning id`;
  if (ids.length) await redis.del(...ids.map((r) => redisKey("rl", rateLimitNames.domainHealthCheck(r.id))));
  await dns.stop();
  delete process.env.DNS_SERVERS;
  delete process.env.SPF_INCLUDE;
});

describe("POST /v1/domains", () => {
  test("201 pending, with the verification TXT and the SPF, DKIM and DMARC records to publish; audit domain.added", async () => {
    const d = await add(`  Mail.${name("Acme").toUpperCase()}. `);
    expect(d.domain).toBe(`mail.${name("acme")}`);
    expect(d.status).toBe("pending");
    const r = d.dns_records;
    expect(r.txt).toEqual({ name: `_nms-verify.${d.domain}`, type: "TXT", value: expect.stringMatching(/^nms-verification=[0-9a-f]{32}$/) });
    expect(r.spf).toEqual({ name: d.domain, type: "TXT", value: `v=spf1 include:${SPF_INCLUDE} ~all` });
    expect(r.dkim.name).toMatch(new RegExp(`^nms-[0-9a-f]{8}\\._domainkey\\.${d.domain.replace(/\./g, "\\.")}$`));
    expect(r.dkim.value).toMatch(/^v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A[A-Za-z0-9+/=]+$/);
    expect(r.dmarc).toEqual({ name: `_dmarc.${d.domain}`, type: "TXT", value: "v=DMARC1; p=none; adkim=r; aspf=r" });
    const got = await call("GET", `/v1/domains/${d.id}`, { key: a.secretKey });
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ id: d.id, status: "pending", verification_error: null, verified_at: null, block_on_failure: false, health: null });
    // the private key never leaves the service
    expect(JSON.stringify(got.body)).not.toMatch(/PRIVATE KEY/);
    const [row] = await sql`select dkim_private_key_enc from sending_domains where id = ${d.id}`;
    expect(row!.dkim_private_key_enc).toMatch(/^v1:/);
    expect(await auditOf(d.id)).toEqual([{ action: "domain.added", actor_type: "api_key", metadata: { domain: d.domain, status: "pending" } }]);
  });

  test("422 validation_failed naming the field: IP addresses, bare public suffixes, malformed names", async () => {
    for (const domain of ["203.0.113.7", "[2001:db8::1]", "co.uk", "com", "github.io", "exa mple.com", "https://example.com/x", "example.notatld"]) {
      const r = await call("POST", "/v1/domains", { key: a.secretKey, body: { domain } });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe("validation_failed");
      expect(r.body.error.details.domain.length).toBe(1);
    }
    const missing = await call("POST", "/v1/domains", { key: a.secretKey, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toEqual({ domain: ["is required"] });
  });

  test("a domain already added in the scope is 409, whatever its case or trailing dot; another environment may add it", async () => {
    const d = await add(name("dup"));
    const again = await call("POST", "/v1/domains", { key: a.secretKey, body: { domain: `${d.domain.toUpperCase()}.` } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("domain_already_added");
    const sandbox = await call("POST", "/v1/domains", { key: a.sandboxKey, body: { domain: d.domain } });
    expect(sandbox.status).toBe(201);
    expect(sandbox.body.data.dns_records.dkim.name).not.toBe(d.dns_records.dkim.name); // its own key and selector
  });

  test("Idempotency-Key: the replay returns the first response and adds nothing", async () => {
    const headers = { "idempotency-key": `dom-${run}` };
    const first = await call("POST", "/v1/domains", { key: a.secretKey, body: { domain: name("idem") }, headers });
    const replay = await call("POST", "/v1/domains", { key: a.secretKey, body: { domain: name("idem") }, headers });
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(first.text);
    const rows = await sql`select id from sending_domains where tenant_id = ${a.tenant.id} and domain = ${name("idem")}`;
    expect(rows.length).toBe(1);
  });

  test("a read-only key cannot add a domain", async () => {
    const ro = await createKey(a.tenant.id, { permissions: ["read"] });
    const r = await call("POST", "/v1/domains", { key: ro.raw, body: { domain: name("ro") } });
    expect(r.status).toBe(403);
  });
});

describe("POST /v1/domains/:id/verify", () => {
  test("pending while the record is missing or wrong (saying what was found), verified once it is served; audit domain.verified", async () => {
    const d = await add(name("verify"));
    const missing = await call("POST", `/v1/domains/${d.id}/verify`, { key: a.secretKey });
    expect(missing.status).toBe(200);
    expect(missing.body.data.status).toBe("pending");
    expect(missing.body.data.verification_error).toBe(`no TXT record found at _nms-verify.${d.domain}; publish TXT "${d.dns_records.txt.value}"`);

    dns.setTxt(d.dns_records.txt.name, "nms-verification=0123456789abcdef0123456789abcdef");
    const wrong = await call("POST", `/v1/domains/${d.id}/verify`, { key: a.secretKey });
    expect(wrong.body.data.status).toBe("pending");
    expect(wrong.body.data.verification_error).toContain('are "nms-verification=0123456789abcdef0123456789abcdef"; none is');

    dns.setTxt(d.dns_records.txt.name, "nms-verification=0123456789abcdef0123456789abcdef", d.dns_records.txt.value);
    const ok = await call("POST", `/v1/domains/${d.id}/verify`, { key: a.secretKey });
    expect(ok.status).toBe(200);
    expect(ok.body.data.status).toBe("verified");
    expect(ok.body.data.verification_error).toBeNull();
    expect(Date.parse(ok.body.data.verified_at)).toBeGreaterThan(Date.now() - 60_000);
    // the first health check runs at verification: nothing else is published yet
    expect(ok.body.data.health).toMatchObject({ spf: { status: "missing" }, dkim: { status: "missing" }, dmarc: { status: "missing" } });

    // verifying again changes nothing and audits nothing more
    const again = await call("POST", `/v1/domains/${d.id}/verify`, { key: a.secretKey });
    expect(again.body.data.verified_at).toBe(ok.body.data.verified_at);
    expect((await auditOf(d.id)).map((e) => [e.action, e.metadata])).toEqual([
      ["domain.added", { domain: d.domain, status: "pending" }],
      ["domain.verified", { domain: d.domain, dkim_verified: false }],
    ]);
  });

  test("dkim_verified is true when the DKIM record is published at verification", async () => {
    const d = await add(name("verify-dkim"));
    publish(d.dns_records, { txt: true, dkim: true });
    const ok = await call("POST", `/v1/domains/${d.id}/verify`, { key: a.secretKey });
    expect(ok.body.data.status).toBe("verified");
    expect(ok.body.data.health.dkim).toEqual({ status: "pass", record: d.dns_records.dkim.value, message: "DKIM record matches this domain's key" });
    const [entry] = (await auditOf(d.id)).filter((e) => e.action === "domain.verified");
    expect(entry!.metadata).toEqual({ domain: d.domain, dkim_verified: true });
  });
});

describe("health", () => {
  test("all missing: GET checks a domain never checked", async () => {
    const d = await add(name("bare"));
    const r = await call("GET", `/v1/domains/${d.id}/health`, { key: a.secretKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      checked_at: expect.any(String),
      spf: { status: "missing", record: null, message: `no SPF record (TXT "v=spf1 ...") at ${d.domain}` },
      dkim: { status: "missing", record: null, message: `no DKIM record at ${d.dns_records.dkim.name}` },
      dmarc: { status: "missing", record: null, message: `no DMARC record (TXT "v=DMARC1; p=...") at _dmarc.${d.domain}` },
    });
    // GET again returns the stored check
    const again = await call("GET", `/v1/domains/${d.id}/health`, { key: a.secretKey });
    expect(again.body.data.checked_at).toBe(r.body.data.checked_at);
  });

  test("all published and passing; then the forced check's limit: 429 rate_limited with Retry-After", async () => {
    const d = await add(name("healthy"));
    publish(d.dns_records);
    const r = await call("POST", `/v1/domains/${d.id}/health/check`, { key: a.secretKey });
    expect(r.status).toBe(200);
    expect(r.body.data.spf).toEqual({ status: "pass", record: d.dns_records.spf.value, message: `SPF record includes include:${SPF_INCLUDE}` });
    expect(r.body.data.dkim.status).toBe("pass");
    expect(r.body.data.dmarc).toEqual({ status: "pass", record: d.dns_records.dmarc.value, message: "DMARC policy p=none" });
    const second = await call("POST", `/v1/domains/${d.id}/health/check`, { key: a.secretKey });
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe("rate_limited");
    const retry = Number(second.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    // the limit is per domain: another domain's check goes through
    const other = await add(name("healthy-2"));
    expect((await call("POST", `/v1/domains/${other.id}/health/check`, { key: a.secretKey })).status).toBe(200);
  });

  test("a DKIM record that differs fails; an SPF record without the include fails", async () => {
    const d = await add(name("drift"));
    publish(d.dns_records);
    dns.setTxt(d.dns_records.dkim.name, "v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAotherkey");
    dns.setTxt(d.domain, "v=spf1 include:_spf.elsewhere.example ~all");
    const r = await call("POST", `/v1/domains/${d.id}/health/check`, { key: a.secretKey });
    expect(r.body.data.dkim.status).toBe("fail");
    expect(r.body.data.dkim.message).toMatch(/differs from this domain's key/);
    expect(r.body.data.spf).toEqual({ status: "fail", record: "v=spf1 include:_spf.elsewhere.example ~all", message: `SPF record does not include include:${SPF_INCLUDE}` });
    expect(r.body.data.dmarc.status).toBe("pass");
  });
});

describe("alerts", () => {
  test("a check that stops passing raises an alert (listed open first), resolved when it passes again", async () => {
    const d = await add(name("alerting"));
    publish(d.dns_records);
    const scope = { tenantId: a.tenant.id, environment: "production" };
    await checkDomain(d.id, { trigger: "forced", scope });
    // DKIM record removed: pass -> missing
    dns.clear(d.dns_records.dkim.name);
    await checkDomain(d.id, { trigger: "forced", scope });
    let list = await call("GET", `/v1/domains/alerts?domain_id=${d.id}`, { key: a.secretKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      {
        id: expect.any(String),
        domain_id: d.id,
        domain: d.domain,
        check: "dkim",
        status: "missing",
        message: `no DKIM record at ${d.dns_records.dkim.name}`,
        created_at: expect.any(String),
        resolved_at: null,
      },
    ]);
    // still failing: no second alert
    await checkDomain(d.id, { trigger: "forced", scope });
    expect((await call("GET", `/v1/domains/alerts?domain_id=${d.id}`, { key: a.secretKey })).body.data.length).toBe(1);

    dns.setTxt(d.dns_records.dkim.name, d.dns_records.dkim.value);
    await checkDomain(d.id, { trigger: "forced", scope });
    list = await call("GET", `/v1/domains/alerts?domain_id=${d.id}`, { key: a.secretKey });
    expect(list.body.data.length).toBe(1);
    expect(Date.parse(list.body.data[0].resolved_at)).toBeGreaterThan(Date.parse(list.body.data[0].created_at) - 1);

    // a newer alert that stays open lists before the resolved one, page by page
    dns.setTxt(d.domain, "v=spf1 -all");
    await checkDomain(d.id, { trigger: "forced", scope });
    const page1 = await call("GET", `/v1/domains/alerts?domain_id=${d.id}&limit=1`, { key: a.secretKey });
    expect(page1.body.data.map((x: any) => [x.check, x.resolved_at === null])).toEqual([["spf", true]]);
    expect(page1.body.meta.has_more).toBe(true);
    const page2 = await call("GET", `/v1/domains/alerts?domain_id=${d.id}&limit=1&cursor=${page1.body.meta.cursor}`, { key: a.secretKey });
    expect(page2.body.data.map((x: any) => [x.check, x.resolved_at === null])).toEqual([["dkim", false]]);
    expect(page2.body.meta).toEqual({ cursor: null, has_more: false });
  });

  test("a check that never passed raises nothing; bad query values are 422", async () => {
    const d = await add(name("never"));
    const scope = { tenantId: a.tenant.id, environment: "production" };
    await checkDomain(d.id, { trigger: "forced", scope });
    await checkDomain(d.id, { trigger: "forced", scope });
    expect((await call("GET", `/v1/domains/alerts?domain_id=${d.id}`, { key: a.secretKey })).body.data).toEqual([]);
    expect((await call("GET", "/v1/domains/alerts?cursor=nope", { key: a.secretKey })).status).toBe(422);
    expect((await call("GET", "/v1/domains/alerts?domain_id=x", { key: a.secretKey })).status).toBe(422);
    expect((await call("GET", "/v1/domains/alerts?limit=500", { key: a.secretKey })).status).toBe(422);
  });
});

describe("change, list, remove", () => {
  test("PATCH block_on_failure; list pages newest first", async () => {
    const d = await add(name("patch"));
    const r = await call("PATCH", `/v1/domains/${d.id}`, { key: a.secretKey, body: { block_on_failure: true } });
    expect(r.status).toBe(200);
    expect(r.body.data.block_on_failure).toBe(true);
    expect((await call("PATCH", `/v1/domains/${d.id}`, { key: a.secretKey, body: { block_on_failure: "yes" } })).status).toBe(422);
    const first = await call("GET", "/v1/domains?limit=1", { key: a.secretKey });
    expect(first.body.data[0].id).toBe(d.id);
    expect(first.body.meta.has_more).toBe(true);
    const next = await call("GET", `/v1/domains?limit=100&cursor=${first.body.meta.cursor}`, { key: a.secretKey });
    expect(next.body.data.some((x: any) => x.id === d.id)).toBe(false);
    expect(next.body.data.length).toBeGreaterThan(0);
  });

  test("DELETE 204 with audit domain.removed {domain, was_verified}; the name can be added again", async () => {
    const d = await add(name("remove"));
    publish(d.dns_records, { txt: true });
    expect((await call("POST", `/v1/domains/${d.id}/verify`, { key: a.secretKey })).body.data.status).toBe("verified");
    const del = await call("DELETE", `/v1/domains/${d.id}`, { key: a.secretKey });
    expect(del.status).toBe(204);
    expect((await call("GET", `/v1/domains/${d.id}`, { key: a.secretKey })).status).toBe(404);
    expect((await call("DELETE", `/v1/domains/${d.id}`, { key: a.secretKey })).status).toBe(404);
    const removed = (await auditOf(d.id)).find((e) => e.action === "domain.removed");
    expect(removed!.metadata).toEqual({ domain: d.domain, was_verified: true });
    expect((await add(d.domain)).status).toBe("pending");
  });
});

describe("isolation", () => {
  test("another tenant, or another environment, sees none of a domain: 404 on every route, absent from lists", async () => {
    const d = await add(name("mine"));
    publish(d.dns_records);
    await checkDomain(d.id, { trigger: "forced", scope: { tenantId: a.tenant.id, environment: "production" } });
    for (const key of [b.secretKey, a.sandboxKey]) {
      for (const [method, path] of [
        ["GET", `/v1/domains/${d.id}`],
        ["PATCH", `/v1/domains/${d.id}`],
        ["POST", `/v1/domains/${d.id}/verify`],
        ["GET", `/v1/domains/${d.id}/health`],
        ["POST", `/v1/domains/${d.id}/health/check`],
        ["DELETE", `/v1/domains/${d.id}`],
      ] as const) {
        const r = await call(method, path, { key, body: method === "PATCH" ? { block_on_failure: true } : undefined });
        expect([method, path, r.status, r.body?.error?.code]).toEqual([method, path, 404, "domain_not_found"]);
      }
      const list = await call("GET", "/v1/domains?limit=100", { key });
      expect(list.body.data.some((x: any) => x.id === d.id)).toBe(false);
      const alerts = await call("GET", `/v1/domains/alerts?domain_id=${d.id}`, { key });
      expect(alerts.body.data).toEqual([]);
    }
    const [row] = await sql`select status, block_on_failure from sending_domains where id = ${d.id}`;
    expect(row).toEqual({ status: "pending", block_on_failure: false });
  });

  test("/v1/domains/alerts is not read as a domain id; an unknown id is 404", async () => {
    expect((await call("GET", "/v1/domains/alerts", { key: b.secretKey })).status).toBe(200);
    expect((await call("GET", "/v1/domains/not-a-uuid", { key: b.secretKey })).status).toBe(404);
    expect((await call("GET", "/v1/domains", { key: "nk_live_nope" })).status).toBe(401);
  });
});
