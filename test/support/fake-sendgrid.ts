// A local server answering as SendGrid v3 Mail Send: 202 + X-Message-Id on success, errors as
// {errors:[{message,field,help}]}, 401 for a wrong key, 429 with X-RateLimit-* (+ Retry-After when scripted).
import { randomBytes } from "node:crypto";
import {
  handleOf,
  json,
  retryAfterHeader,
  scriptedPrelude,
  startFakeHttp,
  track,
  type FakeHttpHandle,
  type RecordedRequest,
} from "./fake-http";

export interface FakeSendgrid extends FakeHttpHandle {
  /** the successfully accepted mail bodies, in order */
  readonly accepted: { messageId: string; body: Record<string, unknown>; request: RecordedRequest }[];
}

export interface FakeSendgridOptions {
  port?: number;
  /** when set, any other Bearer key gets SendGrid's 401 */
  apiKey?: string;
}

function errors(status: number, list: { message: string; field?: string | null }[], headers: Record<string, string> = {}) {
  return json(status, { errors: list.map((e) => ({ message: e.message, field: e.field ?? null, help: null })) }, headers);
}

/** the 400s SendGrid gives for a malformed request, checked before any scripted outcome */
function validateMail(body: unknown): { message: string; field: string }[] {
  const b = body as Record<string, any> | undefined;
  const problems: { message: string; field: string }[] = [];
  if (!b || typeof b !== "object") return [{ message: "Bad Request", field: "" }];
  const to = b.personalizations?.[0]?.to?.[0]?.email;
  if (!Array.isArray(b.personalizations) || typeof to !== "string") {
    problems.push({ message: "The personalizations field is required and must have at least one personalization.", field: "personalizations" });
  }
  if (typeof b.from?.email !== "string") {
    problems.push({ message: "The from object must be provided for every email send.", field: "from" });
  }
  if (!b.template_id) {
    if (!b.subject && !b.personalizations?.[0]?.subject) {
      problems.push({ message: "The subject is required. You can get around this requirement if you use a template with a subject defined or if every personalization has a subject defined.", field: "subject" });
    }
    if (!Array.isArray(b.content) || b.content.length === 0 || b.content.some((c: any) => !c?.value)) {
      problems.push({ message: "Unless a valid template_id is provided, the content parameter is required.", field: "content" });
    }
  }
  return problems;
}

const started = new Set<FakeSendgrid>();

export async function start(opts: FakeSendgridOptions = {}): Promise<FakeSendgrid> {
  const accepted: FakeSendgrid["accepted"] = [];
  const core = startFakeHttp(
    [
      async (req, rec, core) => {
        if (req.method !== "POST" || rec.path !== "/v3/mail/send") return undefined;
        rec.kind = "send";
        if (opts.apiKey !== undefined && rec.headers.authorization !== `Bearer ${opts.apiKey}`) {
          return errors(401, [{ message: "The provided authorization grant is invalid, expired, or revoked" }]);
        }
        const problems = validateMail(rec.json);
        if (problems.length > 0) return errors(400, problems);
        const pre = await scriptedPrelude(core, core.next("send"));
        if ("done" in pre) return pre.done;
        const s = pre.scripted;
        const reset = String(Math.floor(Date.now() / 1000) + 60);
        if (s?.kind === "rate_limit") {
          return errors(429, [{ message: s.message ?? "too many requests" }], {
            "x-ratelimit-limit": "600",
            "x-ratelimit-remaining": "0",
            "x-ratelimit-reset": reset,
            ...retryAfterHeader(s.retryAfter),
          });
        }
        if (s?.kind === "server_error") {
          return errors(s.status ?? 500, [{ message: s.message ?? "internal server error" }], retryAfterHeader(s.retryAfter));
        }
        if (s?.kind === "error") {
          return errors(s.status, [{ message: s.message ?? "Bad Request", field: s.code === undefined ? null : String(s.code) }], s.headers);
        }
        const messageId = randomBytes(16).toString("base64url").slice(0, 22);
        accepted.push({ messageId, body: rec.json as Record<string, unknown>, request: rec });
        const headers = { "x-message-id": messageId, ...(s?.kind === "success" ? s.headers : {}) };
        const status = s?.kind === "success" && s.status ? s.status : 202;
        if (s?.kind === "success" && s.body !== undefined) return json(status, s.body, headers);
        return new Response(null, { status, headers });
      },
    ],
    { port: opts.port },
  );
  return track(Object.assign(handleOf(core, "send"), { accepted }), started, () => (accepted.length = 0));
}

/** stop one fake, or every fake SendGrid this module started */
export async function stop(handle?: FakeSendgrid): Promise<void> {
  for (const h of handle ? [handle] : [...started]) await h.stop();
}
