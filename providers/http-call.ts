// One HTTP call to a provider under a deadline: joins the caller's signal with our timeout,
// reads the body (JSON when it parses), and turns thrown fetch errors into classified failures.
import { failureFromFetchError, isRetryableStatus, parseRetryAfter, failure, httpStatusCode } from "./outcome";
import type { ProviderDeps, SendFailure } from "./types";
import { DEFAULT_TIMEOUT_MS } from "./types";

export interface HttpCallRequest {
  url: string;
  method?: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | URLSearchParams;
}

export interface HttpCallResponse {
  status: number;
  headers: Headers;
  /** parsed JSON, or the text (first 2 KiB) when it is not JSON, or null when empty */
  body: unknown;
}

const MAX_TEXT_BODY = 2048;

export async function httpCall(
  req: HttpCallRequest,
  deps: ProviderDeps,
  signal?: AbortSignal,
): Promise<{ ok: true; res: HttpCallResponse } | { ok: false; failure: SendFailure }> {
  const doFetch = deps.fetch ?? fetch;
  const timeout = AbortSignal.timeout(deps.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const joined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const response = await doFetch(req.url, {
      method: req.method ?? "POST",
      headers: req.headers,
      body: req.body as BodyInit | undefined,
      signal: joined,
      redirect: "manual",
    });
    const text = await response.text();
    return { ok: true, res: { status: response.status, headers: response.headers, body: parseBody(text) } };
  } catch (err) {
    // the timeout signal fires with a TimeoutError; only blame the deadline when it actually fired
    return { ok: false, failure: failureFromFetchError(err, timeout.aborted && !(signal?.aborted ?? false)) };
  }
}

function parseBody(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text.length > MAX_TEXT_BODY ? text.slice(0, MAX_TEXT_BODY) : text;
  }
}

/** What is stored as provider_response: status and the provider's body, never our credentials. */
export function summarise(res: HttpCallResponse, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { status: res.status, body: res.body, ...extra };
}

/**
 * The default classification of a non-2xx answer; adapters pass the provider's own code and
 * message (read from its error shape) and may force retryable for provider codes that mean "later".
 */
export function failureFromHttp(
  res: HttpCallResponse,
  providerError: { code?: string | number; message?: string; retryable?: boolean },
  retryAfterMs?: number,
): SendFailure {
  const retryable = providerError.retryable ?? isRetryableStatus(res.status);
  const after = retryAfterMs ?? parseRetryAfter(res.headers.get("retry-after"));
  return failure(
    retryable,
    providerError.code !== undefined && providerError.code !== "" ? String(providerError.code) : httpStatusCode(res.status),
    providerError.message || `provider answered HTTP ${res.status}`,
    { response: summarise(res), retryAfterMs: retryable ? after : undefined },
  );
}
