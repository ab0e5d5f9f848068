// Idempotency-Key on the POST endpoints SPEC "Common rules" lists, for every route that serves
// them without the route doing anything: lock, replay byte-identically, detect reuse (DESIGN.md 4).
import { Elysia } from "elysia";
import { bodyHash, claim, markCompleting, read, release, scopeKey, store, type IdemRecord } from "../../store/idempotency";
import { redis } from "../../store/redis";
import { AppError, validationFailed } from "../../basics/errors";
import { logger } from "../../basics/log";
import { authOf, type AuthContext } from "./auth";

/** SPEC: /v1/notifications, /v1/channels, /v1/templates, /v1/workflows, /v1/workflows/:slug/trigger, /v1/subscribers, /v1/webhooks, /v1/api-keys, /v1/domains; issue 22 adds /v1/topics and /v1/workflows/:slug/trigger/bulk. */
export const IDEMPOTENT_POST_RE = /^\/v1\/(?:notifications|channels|templates|workflows|subscribers|webhooks|api-keys|domains|topics|workflows\/[^/]+\/trigger(?:\/bulk)?)\/?$/;

const MAX_KEY_LENGTH = 255;
const COMPLETING_WAIT_MS = 2_000;
// Headers that describe this request, not the stored response
const NOT_REPLAYED = new Set(["x-request-id", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "set-cookie"]);

interface Held {
  key: string;
  hash: string;
  token: string;
  done: boolean;
}
const held = new WeakMap<Request, Held>();

function applies(request: Request, path: string): boolean {
  return request.method === "POST" && IDEMPOTENT_POST_RE.test(path);
}

function replay(rec: Extract<IdemRecord, { s: "d" }>): Response {
  return new Response(rec.b, { status: rec.st, headers: { ...rec.hd, "idempotent-replayed": "true" } });
}

const reused = () =>
  new AppError("idempotency_key_reused", "This Idempotency-Key was used with a different request body");
const inUse = () =>
  new AppError("idempotency_key_in_use", "A request with this Idempotency-Key is still being processed; retry later");

async function waitForStored(key: string): Promise<IdemRecord | null> {
  const until = Date.now() + COMPLETING_WAIT_MS;
  let rec = await read(key);
  while (rec && rec.s === "c" && Date.now() < until) {
    await Bun.sleep(10);
    rec = await read(key);
  }
  return rec;
}

function serialize(response: unknown, headers: Record<string, any>): { body: string; contentType: string } | null {
  if (response === undefined || response === null) return { body: "", contentType: headers["content-type"] ?? "" };
  if (typeof response === "string") return { body: response, contentType: headers["content-type"] ?? "text/plain;charset=utf-8" };
  if (response instanceof Response || response instanceof Blob || response instanceof ArrayBuffer || response instanceof ReadableStream) return null;
  // Elysia sends plain objects as JSON.stringify(value) with this content type
  return { body: JSON.stringify(response), contentType: headers["content-type"] ?? "application/json;charset=utf-8" };
}

async function releaseHeld(h: Held) {
  if (h.done) return;
  h.done = true;
  await release(h.key, h.token).catch((err) => logger.warn({ err }, "idempotency release failed"));
}

export const idempotencyPlugin = new Elysia({ name: "plugins.idempotency" })
  .onBeforeHandle({ as: "global" }, async (ctx) => {
    const { request, path } = ctx;
    const idemKey = request.headers.get("idempotency-key");
    if (idemKey === null || !applies(request, path)) return;
    const auth: AuthContext | undefined = (ctx as any).auth ?? authOf(request);
    if (!auth) return; // unauthenticated routes are not idempotent by key
    if (idemKey.trim() === "" || idemKey.length > MAX_KEY_LENGTH) {
      throw validationFailed({ "Idempotency-Key": [`must be 1 to ${MAX_KEY_LENGTH} characters`] });
    }
    const raw: string = (request as any).__rawBody ?? JSON.stringify((ctx as any).body ?? null);
    const hash = bodyHash(raw);
    const key = scopeKey({ tenantId: auth.tenantId, environment: auth.environment, method: "POST", path, key: idemKey });
    const token = crypto.randomUUID();
    const got = await (redis.status === "ready" ? claim(key, hash, token) : Promise.reject(new Error("redis not connected"))).catch((err) => {
      // without the store a retried request could run twice: refuse rather than guess
      logger.warn({ err }, "idempotency store unavailable");
      throw new AppError("service_unavailable", "Idempotency-Key cannot be honoured right now; retry later");
    });
    if (got.claimed) {
      held.set(request, { key, hash, token, done: false });
      return;
    }
    let rec = got.record;
    if (rec && rec.h !== hash) throw reused();
    if (rec && rec.s === "c") rec = await waitForStored(key);
    if (rec && rec.h !== hash) throw reused();
    if (rec && rec.s === "d") return replay(rec);
    if (rec) throw inUse();
    // the first request released its lock (it failed) between our two reads: take it now
    const again = await claim(key, hash, token);
    if (!again.claimed) throw inUse();
    held.set(request, { key, hash, token, done: false });
  })
  // (A global mapResponse hook would be simpler, but it empties Elysia's 404 bodies.)
  .onAfterHandle({ as: "global" }, async ({ request, set, response }) => {
    const h = held.get(request);
    if (!h || h.done) return;
    if (response instanceof Response) {
      // a route that built its own Response: its bytes are final here
      if (response.status < 200 || response.status >= 300 || response.bodyUsed) return releaseHeld(h);
      h.done = true;
      const headers: Record<string, string> = {};
      response.headers.forEach((v, k) => {
        if (!NOT_REPLAYED.has(k)) headers[k] = v;
      });
      const body = await response.clone().text();
      await store(h.key, h.token, { s: "d", h: h.hash, st: response.status, b: body, hd: headers }).catch((err) =>
        logger.warn({ err }, "idempotency store failed"),
      );
      return;
    }
    const status = typeof set.status === "number" ? set.status : 200;
    if (status >= 200 && status < 300) {
      // The bytes exist only once Elysia has cleaned the value by the response schema (after the
      // hooks); until afterResponse stores them, a duplicate waits instead of answering 409.
      await markCompleting(h.key, h.hash, h.token).catch((err) => logger.warn({ err }, "idempotency mark failed"));
    } else {
      await releaseHeld(h);
    }
  })
  // Registered before the error mapper (http/app.ts), so the key is free again before the 4xx/5xx
  // reaches the client: it may fix the request and retry with the same key at once.
  .onError({ as: "global" }, async ({ request }) => {
    const h = held.get(request);
    if (h) await releaseHeld(h);
  })
  .onAfterResponse({ as: "global" }, async ({ request, set, response }) => {
    const h = held.get(request);
    if (!h || h.done) return;
    const status = typeof set.status === "number" ? set.status : 200;
    const out = status >= 200 && status < 300 ? serialize(response, set.headers as Record<string, any>) : null;
    if (!out) return releaseHeld(h);
    h.done = true;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(set.headers as Record<string, any>)) {
      if (!NOT_REPLAYED.has(k.toLowerCase()) && typeof v === "string") headers[k.toLowerCase()] = v;
    }
    if (out.contentType) headers["content-type"] = out.contentType;
    await store(h.key, h.token, { s: "d", h: h.hash, st: status, b: out.body, hd: headers }).catch((err) =>
      logger.warn({ err }, "idempotency store failed"),
    );
  });
