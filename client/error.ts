// NmsError: the one error the client throws for an API failure (every non-2xx answer, and a
// request that never got one), carrying the standard error body and the request id.
import type { ErrorBody, ErrorDetails } from "./types.js";

export interface NmsErrorInit {
  status: number;
  code: string;
  message: string;
  details?: ErrorDetails;
  requestId?: string;
  headers?: Headers;
  body?: unknown;
  cause?: unknown;
}

export class NmsError extends Error {
  /** HTTP status; 0 when no response arrived (code `connection_error` or `timeout`). */
  readonly status: number;
  /** The API's stable code (`validation_failed`, `invalid_api_key`, ...), or `http_<status>` for a body without one. */
  readonly code: string;
  /** Field path -> messages, on validation failures. */
  readonly details: ErrorDetails | undefined;
  /** X-Request-Id of the response: quote it when asking for help; the server logs it on every line. */
  readonly requestId: string | undefined;
  readonly headers: Headers | undefined;
  /** The parsed response body as received (e.g. `error.index` of a failed bulk import). */
  readonly body: unknown;

  constructor(init: NmsErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "NmsError";
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.headers = init.headers;
    this.body = init.body;
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  const e = (body as { error?: unknown } | null)?.error;
  return typeof e === "object" && e !== null && typeof (e as { code?: unknown }).code === "string";
}

/** Builds the error of a non-2xx response from its (possibly empty or non-JSON) body. */
export function errorFromResponse(res: Response, body: unknown, text: string): NmsError {
  const requestId = res.headers.get("x-request-id") ?? undefined;
  const base = { status: res.status, requestId, headers: res.headers, body };
  if (isErrorBody(body)) {
    return new NmsError({ ...base, code: body.error.code, message: body.error.message, details: body.error.details });
  }
  // the flat shape one SPEC guide shows for 401/403: {"error": "<code>", "message": "..."}
  const flat = body as { error?: unknown; message?: unknown } | null;
  if (flat && typeof flat.error === "string") {
    return new NmsError({ ...base, code: flat.error, message: typeof flat.message === "string" ? flat.message : flat.error });
  }
  const message = text.trim().slice(0, 500) || res.statusText || `HTTP ${res.status}`;
  return new NmsError({ ...base, code: `http_${res.status}`, message });
}
