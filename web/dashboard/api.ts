// The dashboard's one way to the API: the typed client (@nms/client) in session-cookie mode, one
// instance per environment, and the standard error body turned into what a page shows.
import { Nms, NmsError, type Environment } from "../../client";

export type { Environment };
export const ENVIRONMENTS: readonly Environment[] = ["production", "sandbox"];

/**
 * What pages call: the whole typed client, already bound to the session cookie and one
 * environment (sent as X-Environment). A page for a new resource uses `api.<resource>` as soon as
 * the client has it; nothing else is needed here.
 */
export type Api = Nms;

const clients = new Map<Environment, Nms>();

/**
 * The dashboard is served by the API it talks to, so every call is same-origin: the browser sends
 * the session cookie and, on POST/PUT/DELETE, the Origin the API compares with APP_URL.
 */
export function apiFor(environment: Environment): Api {
  let nms = clients.get(environment);
  if (!nms) {
    // one retry: a person is waiting, and a page offers its own "Try again"
    nms = new Nms({ baseUrl: window.location.origin, credentials: "same-origin", environment, maxRetries: 1, timeoutMs: 30_000 });
    clients.set(environment, nms);
  }
  return nms;
}

/** Sign-in and the signed-in user: the same in every environment. */
export const session = apiFor("production");

/** An error as a page shows it: the API's message and code, and the fields it names. */
export interface ShownError {
  status: number;
  code: string;
  message: string;
  details?: Record<string, string[]>;
  /** X-Request-Id: the server logs it on every line of the request */
  requestId?: string;
}

export function shownError(err: unknown): ShownError {
  if (err instanceof NmsError) {
    return { status: err.status, code: err.code, message: err.message, details: err.details, requestId: err.requestId };
  }
  return { status: 0, code: "dashboard_error", message: err instanceof Error ? err.message : String(err) };
}

/** The cookie is gone or expired: the dashboard shows the sign-in page again. */
export function isSessionLost(err: ShownError): boolean {
  return err.status === 401 && err.code === "invalid_session";
}
