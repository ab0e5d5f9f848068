// Email from a verified sending domain through the real sender and the smtp provider: the message
// received by a local SMTP server carries a DKIM signature that mailauth verifies against the
// published key; a failing domain adds a warning, or with block_on_failure holds the email as failed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { checkDomain } from "../../domain/sending-domains/health";
import { sql } from "../../store/db";
import { startFakeDns, type FakeDns } from "../support/fake-dns";
import * as fakeSmtp from "../support/fake-smtp";
import { call, createTenant } from "../support/fixtures";
import { startDeliveryHost, waitForStatus } from "./delivery-support";

let dns: FakeDns;
let smtp: fakeSmtp.FakeSmtp;
let host: Awaited<ReturnType<typeof startDeliveryHost>>;
let t: Awaited<ReturnType<typeof createTenant>>;
let other: Awaited<ReturnType<typeof createTenant>>;
const domain = `acme-${Math.random().toString(36).slice(2, 8)}.com`;
let d: { id: string; dns_records: Record<"txt" | "spf" | "dkim" | "dmarc", { name: string; value: string }> };

/** What the test publishes, answered to mailauth as node:dns would (records of strings, a long one split at 255). */
const published = new Map<string, string[][]>();
function publish(name: string, value: string) {
  dns.setTxt(name, value);
  const strings: string[] = [];
  for (let i = 0; i < value.length; i += 255) strings.push(value.slice(i, i + 255));
  published.set(name.toLowerCase(), [strings]);
}
const resolver = async (name: string, rr: string) => {
  const records = rr === "TXT" ? published.get(name.toLowerCase()) : undefined;
  if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
  return records;
};

async function send(key: string) {
  const r = await call("POST", "/v1/notifications", { key, body: { channel: "email", to: "ana@example.org", data: { subject: "Your order", content: "It shipped." } } });
  expect(r.status).toBe(202);
  return r.body.data.id as string;
}

async function configureEmail(key: string) {
  const r = await call("POST", "/v1/channels", {
    key,
    body: { channel: "email", provider: "smtp", credentials: {}, settings: { host: smtp.host, port: smtp.port, secure: false, from_email: `news@mail.${domain}`, from_name: "Acme" } },
  });
  expect(r.status).toBe(201);
}

beforeAll(async () => {
  dns = await startFakeDns();
  process.env.DNS_SERVERS = dns.server;
  smtp = await fakeSmtp.start();
  host = await startDeliveryHost();
  t = await createTenant();
  other = await createTenant();
  await configureEmail(t.secretKey);
  await configureEmail(other.secretKey);
  // the tenant verifies the parent domain; the From address is on a subdomain of it
  const added = await call("POST", "/v1/domains", { key: t.secretKey, body: { domain } });
  d = added.body.data;
  for (const k of ["txt", "spf", "dkim", "dmarc"] as const) publish(d.dns_records[k].name, d.dns_records[k].value);
  const verified = await call("POST", `/v1/domains/${d.id}/verify`, { key: t.secretKey });
  expect(verified.body.data.status).toBe("verified");
  expect(verified.body.data.health.dkim.status).toBe("pass");
});

afterAll(async () => {
  await sql`delete from sending_domains where tenant_id in (${t.tenant.id}, ${other.tenant.id})`;
  await host.stop();
  await smtp.stop();
  await dns.stop();
  delete process.env.DNS_SERVERS;
});

describe("DKIM", () => {
  test("mail from a verified domain is signed; the signature verifies against the published key (and not another)", async () => {
    smtp.reset();
    const id = await send(t.secretKey);
    const [msg] = await smtp.waitForMessages(1);
    expect((await waitForStatus(id, ["sent"])).status).toBe("sent");
    const result = await dkimVerify(msg!.raw, { resolver });
    expect(result.results.length).toBe(1);
    const sig = result.results[0]!;
    expect(sig.status.result).toBe("pass");
    expect(sig.signingDomain).toBe(domain);
    expect(sig.selector).toBe(d.dns_records.dkim.name.split(".")[0]);
    expect((sig.status as { aligned?: unknown }).aligned).toBe(domain); // relaxed alignment with From: news@mail.<domain>

    // the same message against a key that is not the domain's does not verify
    const wrongKey = new Map(published);
    wrongKey.set(d.dns_records.dkim.name.toLowerCase(), [["v=DKIM1; k=rsa; p=" + (await otherPublicKey())]]);
    const forged = await dkimVerify(msg!.raw, { resolver: async (name: string, rr: string) => wrongKey.get(name.toLowerCase()) ?? resolver(name, rr) });
    expect(forged.results[0]!.status.result).not.toBe("pass");

    const detail = await call("GET", `/v1/notifications/${id}`, { key: t.secretKey });
    expect(detail.body.data.warnings).toEqual([]);
  });

  test("another tenant's mail from the same domain is not signed with it", async () => {
    smtp.reset();
    const id = await send(other.secretKey);
    const [msg] = await smtp.waitForMessages(1);
    expect((await waitForStatus(id, ["sent"])).status).toBe("sent");
    expect(msg!.header("dkim-signature")).toBeUndefined();
  });
});

describe("a domain failing its checks", () => {
  test("sends with a domain_unhealthy warning on the notification; with block_on_failure, holds the email as failed", async () => {
    // the DKIM record is replaced by a stale one: the next check fails (and forgets this process's cached domains)
    publish(d.dns_records.dkim.name, "v=DKIM1; k=rsa; p=" + (await otherPublicKey()));
    const check = await checkDomain(d.id, { trigger: "forced", scope: { tenantId: t.tenant.id, environment: "production" } });
    expect(check!.dkim.status).toBe("fail");

    smtp.reset();
    const warned = await send(t.secretKey);
    await smtp.waitForMessages(1);
    expect((await waitForStatus(warned, ["sent"])).status).toBe("sent");
    const detail = await call("GET", `/v1/notifications/${warned}`, { key: t.secretKey });
    expect(detail.body.data.warnings).toEqual([
      { code: "domain_unhealthy", message: `${domain} did not pass its latest health check (dkim: fail); sent anyway, it may land in spam` },
    ]);

    expect((await call("PATCH", `/v1/domains/${d.id}`, { key: t.secretKey, body: { block_on_failure: true } })).status).toBe(200);
    smtp.reset();
    const held = await send(t.secretKey);
    const row = await waitForStatus(held, ["failed", "sent"]);
    expect(row.status).toBe("failed");
    expect(row.error).toEqual({ code: "domain_unhealthy", message: `${domain} did not pass its latest health check (dkim: fail); not sent because the domain has block_on_failure` });
    const attempts = (await call("GET", `/v1/notifications/${held}/attempts`, { key: t.secretKey })).body.data;
    expect(attempts.map((a: any) => [a.status, a.error?.code])).toEqual([["failure", "domain_unhealthy"]]);
    expect(smtp.messages.length).toBe(0);

    // fixed: the next check passes and mail flows again, signed
    publish(d.dns_records.dkim.name, d.dns_records.dkim.value);
    expect((await checkDomain(d.id, { trigger: "forced", scope: { tenantId: t.tenant.id, environment: "production" } }))!.dkim.status).toBe("pass");
    const again = await send(t.secretKey);
    const [msg] = await smtp.waitForMessages(1);
    expect((await waitForStatus(again, ["sent"])).status).toBe("sent");
    expect((await dkimVerify(msg!.raw, { resolver })).results[0]!.status.result).toBe("pass");
  });
});

let otherKey: string | null = null;
async function otherPublicKey(): Promise<string> {
  if (!otherKey) {
    const { generateKeyPairSync } = await import("node:crypto");
    otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "der" }).toString("base64");
  }
  return otherKey;
}
