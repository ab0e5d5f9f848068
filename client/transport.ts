// The one HTTP path of the client: credentials per mode (API key, admin token, session cookie,
// publishable key), JSON, timeouts, retries with back-off, Idempotency-Key reuse and NmsError.
import { errorFromResponse, NmsError } from "./error.js";
import { isRetryable, parseRetryAfter, retryDelayMs, type Outcome, type RetryMode } from "./retry.js";

export type Environment = "production" | "sandbox";

export interface NmsOptions {
  /** A secret (`nk_live_`, `nk_test_`) or publishable (`pk_live_`, `pk_test_`) key, sent as Bearer. */
  apiKey?: string;
  /** The ADMIN_TOKEN, sent as Bearer to `/api/internal/*` and `/v1/admin/*` (auditLogs, blockedDomains, deadLetters, tenants). */
  adminToken?: string;
  /** Default http://localhost:3000. */
  baseUrl?: string;
  /** Dashboard mode: `"include"` sends the session cookie (set by the magic-link or OAuth sign-in). */
  credentials?: RequestCredentials;
  /** Dashboard mode: the environment a session works in, sent as X-Environment (server default production). */
  environment?: Environment;
  /** Publishable-key mode: the subscriber's external id (X-Subscriber-Id) ... */
  subscriberId?: string;
  /** ... and hex HMAC-SHA256(external id, inbox secret), computed by your server (X-Subscriber-Hash). */
  subscriberHash?: string;
  /** Retries after the first try on network errors, timeouts, 429 and 5xx; default 2. */
  maxRetries?: number;
  /** Per try, default 60 000 ms. */
  timeoutMs?: number;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** A fetch implementation; default the global one. */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  /** Overrides the generated Idempotency-Key of a create (reuse it to make a later repeat safe). */
  idempotencyKey?: string;
  maxRetries?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

type QueryValue = string | number | boolean | Date | null | undefined;

export interface Call {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: object;
  body?: unknown;
  /** Sent with the admin token (admin routes). */
  admin?: boolean;
  /** A POST that SPEC lists for Idempotency-Key: one key per call, the same on every retry. */
  idempotent?: boolean;
  /** A POST without side effects a repeat could double (preview, validate, mark read). */
  safe?: boolean;
}

/** Encodes each interpolated value as one path segment: path`/v1/templates/${id}`. */
export function path(strings: TemplateStringsArray, ...values: string[]): string {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(values[i]!) : ""), "");
}

/** A v4 UUID from getRandomValues, which (unlike randomUUID) browsers also offer outside secure contexts. */
export function newIdempotencyKey(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function queryString(query: object | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query as Record<string, QueryValue>)) {
    if (v === undefined || v === null) continue;
    params.append(k, v instanceof Date ? v.toISOString() : String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

async function readBody(res: Response): Promise<{ body: unknown; text: string }> {
  const text = await res.text();
  if (text === "") return { body: undefined, text };
  try {
    return { body: JSON.parse(text), text };
  } catch {
    return { body: text, text };
  }
}

type TryResult = { ok: true; value: unknown } | { ok: false; error: NmsError; outcome: Outcome; retryAfterMs?: number };

export class Transport {
  readonly baseUrl: string;
  readonly #options: NmsOptions;
  readonly #fetch: typeof fetch;

  constructor(options: NmsOptions = {}) {
    this.#options = options;
    this.baseUrl = (options.baseUrl ?? "http://localhost:3000").replace(/\/+$/, "");
    // bound: a browser's fetch called as a method of another object throws "Illegal invocation"
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  #headers(call: Call, opts: RequestOptions, idempotencyKey: string | undefined): Headers {
    const o = this.#options;
    const h = new Headers(o.headers);
    h.set("accept", "application/json");
    const bearer = call.admin ? (o.adminToken ?? o.apiKey) : o.apiKey;
    if (bearer) h.set("authorization", `Bearer ${bearer}`);
    if (o.environment) h.set("x-environment", o.environment);
    if (o.subscriberId !== undefined) h.set("x-subscriber-id", o.subscriberId);
    if (o.subscriberHash !== undefined) h.set("x-subscriber-hash", o.subscriberHash);
    if (call.body !== undefined) h.set("content-type", "application/json");
    if (idempotencyKey !== undefined) h.set("idempotency-key", idempotencyKey);
    for (const [k, v] of Object.entries(opts.headers ?? {})) h.set(k, v);
    return h;
  }

  /**
   * One try. With `keepBody` a 2xx answer is returned as the Response, unread (event streams):
   * `timeoutMs` then covers the headers only, and `signal` still aborts the body afterwards.
   */
  async #try(url: string, init: RequestInit, timeoutMs: number, signal: AbortSignal | undefined, keepBody = false): Promise<TryResult> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const onAbort = () => timeout.abort(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let kept = false;
    try {
      const res = await this.#fetch(url, { ...init, signal: timeout.signal });
      if (res.ok && keepBody) {
        kept = true;
        return { ok: true, value: res };
      }
      const { body, text } = await readBody(res);
      if (res.ok) return { ok: true, value: body };
      const error = errorFromResponse(res, body, text);
      return {
        ok: false,
        error,
        outcome: { kind: "response", status: res.status, code: error.code },
        retryAfterMs: parseRetryAfter(res.headers.get("retry-after")),
      };
    } catch (cause) {
      if (signal?.aborted) throw signal.reason; // the caller gave up: no retry, their own reason
      const timedOut = timeout.signal.aborted;
      return {
        ok: false,
        outcome: { kind: timedOut ? "timeout" : "network" },
        error: new NmsError({
          status: 0,
          code: timedOut ? "timeout" : "connection_error",
          message: timedOut ? `No response within ${timeoutMs} ms` : `Could not reach ${this.baseUrl}: ${(cause as Error)?.message ?? cause}`,
          cause,
        }),
      };
    } finally {
      clearTimeout(timer);
      if (!kept) signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Sends the call, retrying per its mode; resolves with the parsed body (undefined for 204). */
  request<T>(call: Call, opts: RequestOptions = {}): Promise<T> {
    return this.#send<T>(call, opts, false);
  }

  /**
   * Sends a GET whose body the caller reads as it arrives (an event stream), retried like request()
   * until a 2xx answer's headers arrive; `opts.signal` aborts the body too.
   */
  open(call: Call & { method: "GET" }, opts: RequestOptions = {}): Promise<Response> {
    return this.#send<Response>(call, opts, true);
  }

  async #send<T>(call: Call, opts: RequestOptions, keepBody: boolean): Promise<T> {
    const o = this.#options;
    // generated once per call, so every retry of this call carries the same key
    const idempotencyKey = call.idempotent ? (opts.idempotencyKey ?? newIdempotencyKey()) : opts.idempotencyKey;
    // a key on a POST SPEC does not list is ignored by the server, so it makes nothing safe
    const mode: RetryMode = call.method !== "POST" || call.safe || call.idempotent ? "safe" : "unsafe";
    const maxRetries = Math.max(0, opts.maxRetries ?? o.maxRetries ?? 2);
    const timeoutMs = opts.timeoutMs ?? o.timeoutMs ?? 60_000;
    const url = `${this.baseUrl}${call.path}${queryString(call.query)}`;
    const init: RequestInit = {
      method: call.method,
      headers: this.#headers(call, opts, idempotencyKey),
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    };
    if (o.credentials) init.credentials = o.credentials;
    for (let retry = 0; ; retry++) {
      const result = await this.#try(url, init, timeoutMs, opts.signal, keepBody);
      if (result.ok) return result.value as T;
      if (retry >= maxRetries || !isRetryable(mode, result.outcome)) throw result.error;
      const wait = retryDelayMs(retry, result.retryAfterMs);
      if (wait === null) throw result.error;
      await sleep(wait, opts.signal);
    }
  }

  /** request() for the API's `{"data": ...}` envelope: resolves with what is inside. */
  async data<T>(call: Call, opts?: RequestOptions): Promise<T> {
    return (await this.request<{ data: T }>(call, opts)).data;
  }
}
