// Admin blocklist (SPEC Session and admin; DESIGN 6: check ?email=, POST {domain}) and the cached
// lookups other modules call, against real PostgreSQL and Redis: case-insensitive, subdomains matched.
import { afterAll, describe, expect, test } from "bun:test";
import { ADMIN_TOKEN, call, createTenant } from "../support/fixtures";
import { sql } from "../../store/db";
import { redis } from "../../store/redis";
import { redisKey } from "../../store/redis-keys";
import {
  ensureBlocklistSeeded,
  isBlockedDomain,
  isBlockedEmail,
} from "../../store/blocked-domains";
import { normalizeDomain } from "../../schemas/email";

const run = crypto.randomUUID().slice(0, 8);
const admin = { key: ADMIN_TOKEN };
const dom = (label: string) => `${label}-${run}.example`;

afterAll(async () => {
  // every domain this file blocks or unblocks carries the run id
  await sql`delete from blocked_domains where domain like ${`%${run}%`}`;
  await sql`delete from unblocked_domains where domain like ${`%${run}%`}`;
});

async function eventually(check: () => Promise<boolean>, ms = 4000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(25);
  }
  return check();
}

describe("seeded from the disposable-email-domains package", () => {
  test("the package list is in blocked_domains once per package version", async () => {
    await ensureBlocklistSeeded();
    const version = require("disposable-email-domains/package.json").version;
    const [seed] = await sql`select count from blocked_domain_seeds where version = ${version}`;
    expect(seed!.count).toBeGreaterThan(100_000);
    const [{ n }] = (await sql`select count(*)::int as n from blocked_domains where source = 'seed'`) as any;
    expect(n).toBeGreaterThan(100_000);
    await ensureBlocklistSeeded(); // idempotent
  });

  test("well-known disposable domains are blocked, ordinary ones are not", async () => {
    expect(await isBlockedEmail("someone@mailinator.com")).toBe(true);
    expect(await isBlockedEmail("someone@guerrillamail.com")).toBe(true);
    expect(await isBlockedEmail("someone@gmail.com")).toBe(false);
    expect(await isBlockedEmail("not an email")).toBe(false);
  });
});

describe("isBlockedDomain / isBlockedEmail rules", () => {
  test("case-insensitive and subdomains of a blocked domain are blocked; parents and look-alikes are not", async () => {
    const d = dom("rules");
    expect((await call("POST", "/v1/admin/blocked-domains", { ...admin, body: { domain: d } })).status).toBe(201);
    expect(await isBlockedDomain(d)).toBe(true);
    expect(await isBlockedDomain(d.toUpperCase())).toBe(true);
    expect(await isBlockedDomain(`${d}.`)).toBe(true);
    expect(await isBlockedDomain(`mx.eu.${d}`)).toBe(true);
    expect(await isBlockedEmail(`Person@MX.${d.toUpperCase()}`)).toBe(true);
    expect(await isBlockedDomain(`x${d}`)).toBe(false); // not a subdomain, only a longer name
    expect(await isBlockedDomain("example")).toBe(false);
    expect(await isBlockedDomain(`${run}.example`)).toBe(false);
  });

  test("normalizeDomain: lower-case, trailing dot, IDN to punycode; refuses junk", () => {
    expect(normalizeDomain(" Example.COM. ")).toBe("example.com");
    expect(normalizeDomain("bücher.de")).toBe("xn--bcher-kva.de");
    for (const bad of ["", "com", "-a.com", "a..com", "a b.com", "http://a.com", "1.2.3.4", "a_b.com", "*.a.com"]) {
      expect(normalizeDomain(bad)).toBeNull();
    }
  });

  test("a change made by another process reaches this one through pub/sub", async () => {
    const d = dom("remote");
    expect(await isBlockedDomain(d)).toBe(false);
    await sql`insert into blocked_domains (domain, source) values (${d}, 'manual')`;
    await redis.incr(redisKey("blocked-domains", "version"));
    await redis.publish(redisKey("blocked-domains", "changed"), "x");
    expect(await eventually(() => isBlockedDomain(d))).toBe(true);
  });

  test("without a pub/sub message, a bumped version key is noticed by the poll", async () => {
    const d = dom("polled");
    expect(await isBlockedDomain(d)).toBe(false);
    await sql`insert into blocked_domains (domain, source) values (${d}, 'manual')`;
    await redis.incr(redisKey("blocked-domains", "version"));
    expect(await eventually(() => isBlockedDomain(d), 6000)).toBe(true);
  });

  test("lookups are served from memory: 20,000 checks well under a second", async () => {
    await isBlockedEmail("warm@example.org");
    const t0 = performance.now();
    for (let i = 0; i < 20_000; i++) await isBlockedEmail(`u${i}@sub.domain-${i % 50}.example.org`);
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});

describe("admin token required (DESIGN 5: ADMIN_TOKEN for /v1/admin/*)", () => {
  test("no token or an API key -> 401 on every blocklist route", async () => {
    const { secretKey } = await createTenant();
    for (const key of [undefined, secretKey, "wrong"]) {
      expect((await call("GET", "/v1/admin/blocked-domains", { key })).status).toBe(401);
      expect((await call("GET", "/v1/admin/blocked-domains/check?email=a@b.com", { key })).status).toBe(401);
      expect((await call("POST", "/v1/admin/blocked-domains", { key, body: { domain: dom("x") } })).status).toBe(401);
      expect((await call("DELETE", `/v1/admin/blocked-domains/mailinator.com`, { key })).status).toBe(401);
    }
    expect(await isBlockedDomain("mailinator.com")).toBe(true);
  });
});

describe("GET /v1/admin/blocked-domains (cursor pages, ?search=, manual entries first)", () => {
  test("defaults to 50 entries, each with domain, source and created_at, and a cursor to the next page", async () => {
    const res = await call("GET", "/v1/admin/blocked-domains", admin);
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBe(50);
    expect(res.body.meta.has_more).toBe(true);
    expect(typeof res.body.meta.cursor).toBe("string");
    expect(Object.keys(res.body.data[0]).sort()).toEqual(["created_at", "domain", "source"]);
    for (const e of res.body.data) expect(["seed", "manual"]).toContain(e.source);
  });

  test("a domain an admin just blocked is on the first page, before every seeded one", async () => {
    const d = dom("newest");
    expect((await call("POST", "/v1/admin/blocked-domains", { ...admin, body: { domain: d } })).status).toBe(201);
    const res = await call("GET", "/v1/admin/blocked-domains?limit=5", admin);
    expect(res.body.data[0]).toMatchObject({ domain: d, source: "manual" });
    const sources: string[] = res.body.data.map((e: any) => e.source);
    expect(sources.indexOf("seed") === -1 || sources.lastIndexOf("manual") < sources.indexOf("seed")).toBe(true);
  });

  test("walking the cursor visits manual entries newest first, then seeds alphabetically, without repeats", async () => {
    const mine = ["m1", "m2", "m3"].map((l) => `${l}.walk-${run}.example`);
    for (const d of mine) expect((await call("POST", "/v1/admin/blocked-domains", { ...admin, body: { domain: d } })).status).toBe(201);
    // one seeded domain matching the search too (the test's own row, marked as a seed)
    const seeded = `zz.walk-${run}.example`;
    await sql`insert into blocked_domains (domain, source, created_at) values (${seeded}, 'seed', now() - interval '1 day')`;
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const q: string = `search=walk-${run}&limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const page: any = await call("GET", `/v1/admin/blocked-domains?${q}`, admin);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((e: any) => e.domain));
      if (!page.body.meta.has_more) break;
      cursor = page.body.meta.cursor;
    }
    expect(seen).toEqual([...[...mine].reverse(), seeded]);
    await sql`delete from blocked_domains where domain = ${seeded}`;
  });

  test("search is a case-insensitive substring; % and _ are literal", async () => {
    for (const l of ["aa", "bb", "cc"]) {
      await call("POST", "/v1/admin/blocked-domains", { ...admin, body: { domain: `${l}.srch-${run}.example` } });
    }
    const all = await call("GET", `/v1/admin/blocked-domains?search=SRCH-${run.toUpperCase()}`, admin);
    expect(all.body.data.map((r: any) => r.domain).sort()).toEqual(["aa", "bb", "cc"].map((l) => `${l}.srch-${run}.example`));
    expect(all.body.meta).toEqual({ cursor: null, has_more: false });
    const likeChars = await call("GET", `/v1/admin/blocked-domains?search=%25_${run}`, admin);
    expect(likeChars.body.data).toEqual([]);
  });

  test("bad limit or cursor -> 422", async () => {
    for (const q of ["limit=0", "limit=501", "limit=abc", "cursor=nope", `cursor=${Buffer.from('[2,"x","y"]').toString("base64url")}`]) {
      const res = await call("GET", `/v1/admin/blocked-domains?${q}`, admin);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
    }
  });
});

describe("GET /v1/admin/blocked-domains/check?email= -> {data:{email, blocked}}", () => {
  test("blocked, subdomain, upper-case and clean addresses", async () => {
    const cases: [string, boolean][] = [
      ["a@mailinator.com", true],
      ["A@MAILINATOR.COM", true],
      ["a@eu.mailinator.com", true],
      ["a@example-clean-" + run + ".com", false],
    ];
    for (const [email, blocked] of cases) {
      const res = await call("GET", `/v1/admin/blocked-domains/check?email=${encodeURIComponent(email)}`, admin);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: { email, blocked } });
    }
  });

  test("missing or invalid email -> 422 validation_failed", async () => {
    for (const q of ["", "?email=", "?email=nope", "?email=a@"]) {
      const res = await call("GET", `/v1/admin/blocked-domains/check${q}`, admin);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(res.body.error.details.email).toBeDefined();
    }
  });
});

describe("POST /v1/admin/blocked-domains {domain}", () => {
  test("201 {data:{domain, created_at}} normalized to lower case; blocks at once", async () => {
    const d = dom("Added");
    const res = await call("POST", "/v1/admin/blocked-domains", { ...admin, body: { domain: d.toUpperCase() } });
    expect(res.status).toBe(201);
    expect(res.body.data.domain).toBe(d.toLowerCase());
    expect(res.body.data.source).toBe("manual");
    expect(Date.parse(res.body.data.created_at)).not.toBeNaN();
    const check = await call("GET", `/v1/admin/blocked-domains/check?email=x@${d}`, admin);
    expect(check.body.data.blocked).toBe(true);
  });

  test("already blocked (any case) -> 409 domain_already_blocked", async () => {
    const d = dom("twice");
    expect((await call("POST", "/v1/admin/blocked-domains", { ...admin, body: { domain: d } })).status).toBe(201);
    const again = await call("POST", "/v1/admin/blocked-domains", { ...admin, body: { domain: d.toUpperCase() } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("domain_already_blocked");
    const pkg = await call("POST", "/v1/admin/blocked-domains", { ...admin, body: { domain: "mailinator.com" } });
    expect(pkg.status).toBe(409);
  });

  test("invalid domain -> 422 validation_failed with details.domain", async () => {
    for (const body of [{}, { domain: "" }, { domain: "not a domain" }, { domain: "localhost" }, { domain: 42 }, { domain: "a@b.com" }]) {
      const res = await call("POST", "/v1/admin/blocked-domains", { ...admin, body });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe("validation_failed");
      expect(res.body.error.details.domain).toBeDefined();
    }
  });

  test("DESIGN 6: a newly blocked domain refuses magic-link sign-ups", async () => {
    const d = dom("signup");
    const before = await call("POST", "/auth/magic-link", { body: { email: `x@${d}` } });
    expect(before.status).toBe(202);
    await call("POST", "/v1/admin/blocked-domains", { ...admin, body: { domain: d } });
    const after = await call("POST", "/auth/magic-link", { body: { email: `x@team.${d}` } });
    expect(after.status).toBe(422);
    expect(after.body.error.code).toBe("email_domain_blocked");
  });
});

describe("DELETE /v1/admin/blocked-domains/:domain", () => {
  test("204, case-insensitive, and the domain is no longer blocked", async () => {
    const d = dom("removed");
    await call("POST", "/v1/admin/blocked-domains", { ...admin, body: { domain: d } });
    const res = await call("DELETE", `/v1/admin/blocked-domains/${d.toUpperCase()}`, admin);
    expect(res.status).toBe(204);
    expect(await isBlockedDomain(d)).toBe(false);
    expect(await isBlockedEmail(`a@sub.${d}`)).toBe(false);
  });

  test("a reload that began before an admin edit (after another process's change) does not undo it", async () => {
    for (let round = 0; round < 5; round++) {
      const d = dom(`reload-race-${round}`);
      expect((await call("POST", "/v1/admin/blocked-domains", { ...admin, body: { domain: d } })).status).toBe(201);
      expect(await isBlockedDomain(d)).toBe(true);
      // another process's change: this process starts reading the whole table
      await redis.incr(redisKey("blocked-domains", "version"));
      await redis.publish(redisKey("blocked-domains", "changed"), "x");
      await Bun.sleep(round * 3);
      expect((await call("DELETE", `/v1/admin/blocked-domains/${d}`, admin)).status).toBe(204);
      expect(await isBlockedDomain(d)).toBe(false);
      await Bun.sleep(250); // the reload has finished (it reads ~100k rows)
      expect(await isBlockedDomain(d)).toBe(false);
      await sql`delete from unblocked_domains where domain = ${d}`; // what the DELETE remembered
    }
  });

  test("not blocked -> 404 blocked_domain_not_found (a subdomain of a blocked domain is not an entry)", async () => {
    const res = await call("DELETE", `/v1/admin/blocked-domains/${dom("never")}`, admin);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("blocked_domain_not_found");
    const sub = await call("DELETE", `/v1/admin/blocked-domains/eu.mailinator.com`, admin);
    expect(sub.status).toBe(404);
    expect(await isBlockedDomain("eu.mailinator.com")).toBe(true);
  });

  test("an invalid domain -> 422", async () => {
    const res = await call("DELETE", `/v1/admin/blocked-domains/not_a_domain`, admin);
    expect(res.status).toBe(422);
  });

  test("unblocking a package domain is remembered so a later seed does not block it again", async () => {
    // a package domain nobody else's test uses
    const [row] = await sql`select domain from blocked_domains where source = 'seed' and domain like '%.%' order by domain desc limit 1`;
    const d = row!.domain as string;
    expect((await call("DELETE", `/v1/admin/blocked-domains/${d}`, admin)).status).toBe(204);
    const [kept] = await sql`select 1 from unblocked_domains where domain = ${d}`;
    expect(kept).toBeDefined();
    expect(await isBlockedDomain(d)).toBe(false);
    // blocking it again by hand lifts the memory
    expect((await call("POST", "/v1/admin/blocked-domains", { ...admin, body: { domain: d } })).status).toBe(201);
    expect((await sql`select 1 from unblocked_domains where domain = ${d}`).length).toBe(0);
  });
});
