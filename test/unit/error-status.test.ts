// The HTTP error table (http/plugins/errors.ts): every code answers the status it answered when
// errors carried their own status, and every code the code base raises has a row (no silent 400).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { Elysia } from "elysia";
import { AppError } from "../../basics/errors";
import { ERROR_STATUS, statusFor, SUFFIX_STATUS } from "../../http/plugins/errors";
import { edgePlugins } from "../../http/plugins/edge";

const ROOT = join(import.meta.dir, "..", "..");

/** The codes of each status, as `new ApiError(status, code, ...)` (or DESIGN.md 4) gave it before the table. */
const CODES_BEFORE: Record<number, string[]> = {
  400: ["invalid_json", "invalid_parameters", "invalid_token", "token_expired", "invalid_state", "oauth_denied", "oauth_exchange_failed", "email_not_verified", "callback_expired"],
  401: ["invalid_api_key", "invalid_admin_token", "invalid_session", "invalid_signature", "invalid_metrics_token"],
  402: ["quota_exceeded", "plan_limit_reached"],
  403: ["insufficient_permissions", "origin_not_allowed", "session_required", "invalid_verify_token"],
  404: [
    "not_found",
    "template_not_found",
    "translation_not_found",
    "preference_category_not_found",
    "notification_not_found",
    "subscriber_not_found",
    "team_member_not_found",
    "blocked_domain_not_found",
    "channel_not_found",
    "provider_not_found",
    "provider_not_configured",
    "workflow_not_found",
    "suppression_not_found",
    "link_not_found",
    "webhook_not_found",
    "delivery_not_found",
    "event_not_found",
    "domain_not_found",
    "dead_letter_not_found",
    "workflow_run_not_found",
    "plan_not_found",
    "topic_not_found",
    "broadcast_not_found",
    "tenant_not_found",
    "offboarding_not_found",
    "topic_not_found",
  ],
  409: [
    "conflict",
    "run_not_cancellable",
    "broadcast_not_cancellable",
    "topic_already_exists",
    "idempotency_key_in_use",
    "subscriber_erased",
    "email_taken",
    "last_owner",
    "domain_already_blocked",
    "channel_already_configured",
    "origin_already_allowed",
    "webhook_inactive",
    "delivery_not_retryable",
    "domain_already_added",
    "plan_already_exists",
    "plan_already_subscribed",
    "subscription_not_cancellable",
    "topic_already_exists",
  ],
  413: ["payload_too_large"],
  415: ["unsupported_media_type"],
  422: ["validation_failed", "idempotency_key_reused", "email_domain_blocked", "template_render_failed", "template_not_active", "channel_not_configured", "webhook_limit_reached", "plan_not_billable"],
  429: ["rate_limited"],
  500: ["internal_error"],
  502: ["gateway_error"],
  503: ["service_unavailable", "dns_unavailable", "gateway_not_configured"],
};
const STATUS_BEFORE = new Map(Object.entries(CODES_BEFORE).flatMap(([status, codes]) => codes.map((code) => [code, Number(status)] as const)));

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "test" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (path.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** Codes passed to `new AppError("...")`, `super("...")` of an AppError subclass, and the constructors' code argument. */
function raisedCodes(): Map<string, string> {
  const found = new Map<string, string>();
  const patterns = [/new AppError\(\s*"([a-z_]+)"/g, /super\(\s*"([a-z_]+)"/g, /\b(?:notFound|conflict|forbidden)\(\s*"([a-z_]+)"/g];
  for (const file of sourceFiles(ROOT)) {
    const text = readFileSync(file, "utf8");
    for (const re of patterns) for (const m of text.matchAll(re)) found.set(m[1]!, relative(ROOT, file));
  }
  return found;
}

describe("the code -> status table", () => {
  test("every code answers the status it answered before", () => {
    const wrong = [...STATUS_BEFORE].filter(([code, status]) => statusFor(code) !== status);
    expect(wrong).toEqual([]);
  });

  test("every row of the table is one of those codes (a new row needs its status pinned above)", () => {
    expect(Object.keys(ERROR_STATUS).filter((code) => !STATUS_BEFORE.has(code))).toEqual([]);
  });

  test("families: *_not_found 404, *_in_use 409, *_already_* 409; an unknown code 400", () => {
    expect(SUFFIX_STATUS.length).toBe(3);
    expect(statusFor("widget_not_found")).toBe(404);
    expect(statusFor("lock_in_use")).toBe(409);
    expect(statusFor("webhook_already_disabled")).toBe(409);
    expect(statusFor("something_new")).toBe(400);
  });

  test("every code raised in the code base has its status pinned here (none relies on the fallback)", () => {
    const codes = raisedCodes();
    expect(codes.size).toBeGreaterThan(20);
    const unpinned = [...codes].filter(([code]) => !STATUS_BEFORE.has(code)).map(([code, file]) => `${code} (${file})`);
    expect(unpinned).toEqual([]);
  });
});

describe("the mapper uses the table", () => {
  const app = new Elysia()
    .use(edgePlugins)
    .get("/limited", () => {
      throw new AppError("rate_limited", "slow down", undefined, { "retry-after": "7", "x-ratelimit-remaining": "0" });
    })
    .get("/missing", () => {
      throw new AppError("template_not_found", "Template not found");
    })
    .get("/invalid", () => {
      throw new AppError("validation_failed", "Validation failed", { name: ["is required"] });
    });

  test("rate_limited -> 429 with its headers and the standard body", async () => {
    const res = await app.handle(new Request("http://localhost/limited"));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(await res.json()).toEqual({ error: { code: "rate_limited", message: "slow down" } });
  });

  test("a *_not_found code -> 404; validation_failed -> 422 with details", async () => {
    const missing = await app.handle(new Request("http://localhost/missing"));
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("template_not_found");
    const invalid = await app.handle(new Request("http://localhost/invalid"));
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toEqual({ error: { code: "validation_failed", message: "Validation failed", details: { name: ["is required"] } } });
  });
});
