// One signed POST to a receiver: resolve and check the address once, connect to that address
// (Host header and TLS server name from the URL, so no second lookup), follow no redirect, 30 s.
import { parseRetryAfter } from "../../providers/outcome";
import { ipLiteralOf, parseWebhookUrl, pickTarget } from "./address";

/** SPEC Limits: the receiver has 30 seconds to answer. */
export const RECEIVER_TIMEOUT_MS = 30_000;
/** DESIGN.md 6: the first 1 KiB of the answer is kept. */
export const RESPONSE_BODY_BYTES = 1024;

export interface ReceiverOutcome {
  /** any 2xx acknowledges */
  ok: boolean;
  status: number | null;
  body: string | null;
  durationMs: number;
  error: { code: string; message: string } | null;
  /** a 429 or 503 with Retry-After: how long the receiver asked us to wait (real ms) */
  retryAfterMs?: number;
}

export interface PostOptions {
  allowPrivate: boolean;
  /** aborted by the caller (the dispatcher's handler deadline) */
  signal?: AbortSignal;
  timeoutMs?: number;
  /** extra TLS options (a test's own CA); the server name always comes from the URL */
  tls?: { ca?: string | string[] };
}

/** The first RESPONSE_BODY_BYTES of a body as text (PostgreSQL text cannot hold NUL); the rest is not read. */
async function headOf(res: Response): Promise<string | null> {
  if (!res.body) return null;
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_BODY_BYTES) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    if (size >= RESPONSE_BODY_BYTES) reader.cancel().catch(() => {});
    else reader.releaseLock();
  }
  const all = new Uint8Array(Math.min(size, RESPONSE_BODY_BYTES));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, all.length - at);
    all.set(part, at);
    at += part.length;
    if (at >= all.length) break;
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(all).replace(/\u0000/g, "\uFFFD");
}

function fetchError(err: unknown, timedOut: boolean, callerAborted: boolean, timeoutMs: number): { code: string; message: string } {
  if (timedOut) return { code: "timeout", message: `no answer within ${timeoutMs} ms` };
  if (callerAborted) return { code: "aborted", message: "the attempt was abandoned (handler deadline)" };
  const e = err as { code?: string; message?: string; name?: string };
  const code = String(e.code ?? e.name ?? "error");
  if (/CERT|TLS|SSL/i.test(code)) return { code: "tls_error", message: `${code}: ${e.message ?? "TLS handshake failed"}` };
  return { code: "connection_error", message: `${code}: ${e.message ?? "the connection failed"}`.slice(0, 500) };
}

/**
 * POSTs `body` to the receiver at `rawUrl`. Never throws: every failure (refused address, DNS,
 * connection, timeout, non-2xx, redirect) is an outcome with an error code.
 */
export async function postToReceiver(rawUrl: string, body: string, headers: Record<string, string>, opts: PostOptions): Promise<ReceiverOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const parsed = parseWebhookUrl(rawUrl);
  if (!parsed.ok) return { ok: false, status: null, body: null, durationMs: 0, error: { code: "invalid_url", message: `url ${parsed.message}` } };
  const url = parsed.url;
  const target = await pickTarget(url.hostname, opts.allowPrivate);
  if (!target.ok) return { ok: false, status: null, body: null, durationMs: elapsed(), error: { code: target.code, message: target.message } };

  // The checked address goes into the URL; the name stays in the Host header and the TLS server
  // name (SNI and certificate check), so nothing resolves the name a second time.
  const direct = new URL(url.href);
  direct.hostname = target.family === 6 ? `[${target.address}]` : target.address;
  const named = ipLiteralOf(url.hostname) === null;
  const timeoutMs = opts.timeoutMs ?? RECEIVER_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await fetch(direct.href, {
      method: "POST",
      headers: { ...headers, host: url.host },
      body,
      redirect: "manual",
      signal,
      tls: { ...(named ? { serverName: url.hostname } : {}), ...(opts.tls ?? {}) },
    } as RequestInit);
  } catch (err) {
    return { ok: false, status: null, body: null, durationMs: elapsed(), error: fetchError(err, timeout.aborted, opts.signal?.aborted ?? false, timeoutMs) };
  }
  let text: string | null = null;
  try {
    text = await headOf(res);
  } catch (err) {
    if (timeout.aborted || opts.signal?.aborted) {
      return { ok: false, status: res.status, body: null, durationMs: elapsed(), error: fetchError(err, timeout.aborted, opts.signal?.aborted ?? false, timeoutMs) };
    }
    // the status line arrived: a body cut short does not change the answer
  }
  const durationMs = elapsed();
  const status = res.status;
  if (status >= 200 && status < 300) return { ok: true, status, body: text, durationMs, error: null };
  const out: ReceiverOutcome = { ok: false, status, body: text, durationMs, error: { code: `http_${status}`, message: `the receiver answered ${status}` } };
  if (status >= 300 && status < 400) {
    const to = res.headers.get("location");
    out.error = { code: "redirect_not_followed", message: `the receiver answered ${status}${to ? ` to ${to.slice(0, 200)}` : ""}; redirects are not followed` };
  }
  if (status === 429 || status === 503) {
    const ra = parseRetryAfter(res.headers.get("retry-after"));
    if (ra !== undefined) out.retryAfterMs = ra;
  }
  return out;
}
