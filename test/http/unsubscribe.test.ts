// /unsubscribe/:token (DESIGN.md 6, RFC 8058): GET shows a confirmation page and changes nothing,
// POST applies the unsubscribe; a tampered or foreign token -> 400 with the standard error body.
import { beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { createUnsubscribeToken, verifyUnsubscribeToken } from "../../domain/subscribers/unsubscribe-token";
import { sql } from "../../store/db";
import { call, createTenant } from "../support/fixtures";

let T: Awaited<ReturnType<typeof createTenant>>;
let subscriberId: string;

async function prefs(): Promise<Record<string, unknown>[]> {
  return await sql`select category, channel, enabled, source from subscriber_preferences where subscriber_id = ${subscriberId} order by category, channel`;
}

beforeAll(async () => {
  T = await createTenant();
  const s = await call("POST", "/v1/subscribers", { key: T.secretKey, body: { external_id: "unsub-1", email: "u1@example.com" } });
  subscriberId = s.body.data.id;
});

describe("unsubscribe tokens", () => {
  test("sign and verify tenant, environment, subscriber, channel and optional category", () => {
    const tok = createUnsubscribeToken({ tenantId: T.tenant.id, environment: "production", subscriberId, channel: "email", category: "news" });
    expect(verifyUnsubscribeToken(tok)).toEqual({ tenantId: T.tenant.id, environment: "production", subscriberId, channel: "email", category: "news" });
    const noCat = createUnsubscribeToken({ tenantId: T.tenant.id, environment: "production", subscriberId, channel: "sms" });
    expect(verifyUnsubscribeToken(noCat)?.category).toBeNull();
  });

  test("any change to payload or signature fails verification", () => {
    const tok = createUnsubscribeToken({ tenantId: T.tenant.id, environment: "production", subscriberId, channel: "email" });
    const [p, s] = tok.split(".") as [string, string];
    const forged = Buffer.from(JSON.parse(Buffer.from(p, "base64url").toString()) && JSON.stringify({ v: "1", t: T.tenant.id, e: "production", s: crypto.randomUUID(), c: "email" })).toString("base64url");
    for (const bad of [`${forged}.${s}`, `${p}.${s.slice(0, -2)}AA`, `${p}`, "", "a.b.c", `${p}.${createHmac("sha256", "other-key").update(p).digest("base64url")}`]) {
      expect(verifyUnsubscribeToken(bad)).toBeNull();
    }
  });
});

describe("GET /unsubscribe/:token", () => {
  test("200 HTML confirmation page with a form that POSTs back; nothing changes", async () => {
    const tok = createUnsubscribeToken({ tenantId: T.tenant.id, environment: "production", subscriberId, channel: "email" });
    const r = await call("GET", `/unsubscribe/${tok}`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(r.text).toContain(`<form method="post" action="/unsubscribe/${tok}"`);
    expect(await prefs()).toEqual([]);
  });

  test("400 invalid_token with the standard error body for a tampered token", async () => {
    const tok = createUnsubscribeToken({ tenantId: T.tenant.id, environment: "production", subscriberId, channel: "email" });
    const r = await call("GET", `/unsubscribe/${tok.slice(0, -3)}xyz`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: { code: "invalid_token", message: expect.any(String) } });
  });
});

describe("POST /unsubscribe/:token (RFC 8058 one-click)", () => {
  test("a tampered or foreign token -> 400 and nothing changes", async () => {
    const tok = createUnsubscribeToken({ tenantId: T.tenant.id, environment: "production", subscriberId, channel: "email" });
    const [p] = tok.split(".");
    const foreign = `${p}.${createHmac("sha256", "someone-elses-key").update(p!).digest("base64url")}`;
    for (const bad of [foreign, `${tok}x`, "garbage"]) {
      const r = await call("POST", `/unsubscribe/${bad}`, { rawBody: "List-Unsubscribe=One-Click", headers: { "content-type": "application/x-www-form-urlencoded" } });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("invalid_token");
    }
    expect(await prefs()).toEqual([]);
  });

  test("applies it: preference (category all, channel) enabled false, source unsubscribe; 200", async () => {
    const tok = createUnsubscribeToken({ tenantId: T.tenant.id, environment: "production", subscriberId, channel: "email" });
    const r = await call("POST", `/unsubscribe/${tok}`, { rawBody: "List-Unsubscribe=One-Click", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ unsubscribed: true, channel: "email", category: "all" });
    expect(await prefs()).toEqual([{ category: "all", channel: "email", enabled: false, source: "unsubscribe" }]);
    // repeated clicks are harmless
    expect((await call("POST", `/unsubscribe/${tok}`, { rawBody: "List-Unsubscribe=One-Click", headers: { "content-type": "application/x-www-form-urlencoded" } })).status).toBe(200);
  });

  test("a category token switches off that category only; a browser form post gets an HTML page", async () => {
    const tok = createUnsubscribeToken({ tenantId: T.tenant.id, environment: "production", subscriberId, channel: "sms", category: "promotions" });
    const r = await call("POST", `/unsubscribe/${tok}`, {
      rawBody: "List-Unsubscribe=One-Click",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/html");
    const rows = await prefs();
    expect(rows).toContainEqual({ category: "promotions", channel: "sms", enabled: false, source: "unsubscribe" });
  });
});
