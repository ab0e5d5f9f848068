// The HTTP error table (http/plugins/errors.ts): every code answers the status it answered when
// errors carried their own status, and every code the code base raises has a row (no silent 400).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { Elysia } from "elysia";
import { AppError } from "../../basics/errors";
import { ERROR_STATUS, errorsPlugin, statusFor, SUFFIX_STATUS } from "../../http/plugins/errors";

const ROOT = join(import.meta.dir, "..", "..");

/** Each code with the status its `new ApiError(status, code, ...)` (or DESIGN.md 4) gave it before the table. */
const STATUS_BEFORE: Record<string, number> = {
  invalid_json: 400,
  invalid_parameters: 400,
  invalid_token: 400,
  token_expired: 400,
  invalid_state: 400,
  oauth_denied: 400,
  oauth_exchange_failed: 400,
  email_not_verified: 400,
  invalid_api_key: 401,
  invalid_admin_token: 401,
  invalid_session: 401,
  invalid_signature: 401,
  insufficient_permissions: 403,
  origin_not_allowed: 403,
  session_required: 403,
  invalid_verify_token: 403,
  not_found: 404,
  template_not_found: 404,
  notification_not_found: 404,
  subscriber_not_found: 404,
  team_member_not_found: 404,
  blocked_domain_not_found: 404,
  channel_not_found: 404,
  provider_not_found: 404,
  provider_not_configured: 404,
  workflow_not_found: 404,
  conflict: 409,
  run_not_cancellable: 409,
  idempotency_key_in_use: 409,
  subscriber_erased: 409,
  email_taken: 409,
  last_owner: 409,
  domain_already_blocked: 409,
  channel_already_configured: 409,
  origin_already_allowed: 409,
  payload_too_large: 413,
  validation_failed: 422,
  idempotency_key_reused: 422,
  email_domain_blocked: 422,
  template_render_failed: 422,
  template_not_active: 422,
  channel_not_configured: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
};

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
    const wrong = Object.entries(STATUS_BEFORE).filter(([code, status]) => statusFor(code) !== status);
    expect(wrong).toEqual([]);
  });

  test("every row of the table is one of those codes (a new row needs its status pinned above)", () => {
    expect(Object.keys(ERROR_STATUS).filter((code) => !(code in STATUS_BEFORE))).toEqual([]);
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
    const unpinned = [...codes].filter(([code]) => !(code in STATUS_BEFORE)).map(([code, file]) => `${code} (${file})`);
    expect(unpinned).toEqual([]);
  });
});

describe("the mapper uses the table", () => {
  const app = new Elysia()
    .use(errorsPlugin)
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
