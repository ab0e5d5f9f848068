// A local server answering as Meta's WhatsApp Cloud API (POST /v20.0/{phone_number_id}/messages),
// with Graph error bodies, plus builders for signed status webhooks that /webhooks/whatsapp receives.
import { createHmac, randomBytes } from "node:crypto";
import {
  handleOf,
  json,
  postRoute,
  retryAfterHeader,
  scriptedPrelude,
  startFakeHttp,
  stopStarted,
  successJson,
  track,
  type FakeHttpHandle,
  type RecordedRequest,
} from "./fake-http";

export interface FakeWhatsappMessage {
  id: string;
  phoneNumberId: string;
  to: string;
  body: Record<string, unknown>;
  request: RecordedRequest;
}

export interface FakeWhatsappCloud extends FakeHttpHandle {
  readonly messages: FakeWhatsappMessage[];
}

export interface FakeWhatsappCloudOptions {
  port?: number;
  /** when set, other Bearer tokens get Graph's 401 / code 190 */
  accessToken?: string;
}

/** Graph API error body: {error:{message,type,code,error_data?,fbtrace_id}} */
export function graphError(
  status: number,
  code: number,
  message: string,
  opts: { details?: string; type?: string; headers?: Record<string, string> } = {},
): Response {
  const error: Record<string, unknown> = {
    message,
    type: opts.type ?? "OAuthException",
    code,
    fbtrace_id: randomBytes(9).toString("base64url"),
  };
  if (opts.details) error.error_data = { messaging_product: "whatsapp", details: opts.details };
  return json(status, { error }, opts.headers);
}

const PATH_RE = /^\/v\d+\.\d+\/([^/]+)\/messages$/;
const started = new Set<FakeWhatsappCloud>();

export async function start(opts: FakeWhatsappCloudOptions = {}): Promise<FakeWhatsappCloud> {
  const messages: FakeWhatsappMessage[] = [];
  const core = startFakeHttp(
    [
      postRoute("send", PATH_RE, async (rec, match, core) => {
        if (opts.accessToken !== undefined && rec.headers.authorization !== `Bearer ${opts.accessToken}`) {
          return graphError(401, 190, "Invalid OAuth access token - Cannot parse access token");
        }
        const body = rec.json as Record<string, any> | undefined;
        if (!body || body.messaging_product !== "whatsapp") {
          return graphError(400, 100, "(#100) The parameter messaging_product is required.");
        }
        if (typeof body.to !== "string" || !/^\d{7,15}$/.test(body.to)) {
          return graphError(400, 131009, "(#131009) Parameter value is not valid", { details: "Invalid phone number" });
        }
        if (body.type === "text" && !body.text?.body) {
          return graphError(400, 100, "(#100) The parameter text['body'] is required.");
        }
        if (body.type === "template" && (!body.template?.name || !body.template?.language?.code)) {
          return graphError(400, 100, "(#100) The parameter template['name'] and template['language'] are required.");
        }
        if (body.type !== "text" && body.type !== "template") {
          return graphError(400, 100, "(#100) Param type must be one of {TEXT, TEMPLATE, ...}");
        }
        const pre = await scriptedPrelude(core, core.next("send"));
        if ("done" in pre) return pre.done;
        const s = pre.scripted;
        if (s?.kind === "rate_limit") {
          return graphError(429, Number(s.code ?? 130429), s.message ?? "(#130429) Rate limit hit", {
            details: "Cloud API message throughput has been reached.",
            headers: retryAfterHeader(s.retryAfter),
          });
        }
        if (s?.kind === "server_error") {
          return graphError(s.status ?? 500, Number(s.code ?? 131000), s.message ?? "Something went wrong", {
            details: "Something went wrong",
            headers: retryAfterHeader(s.retryAfter),
          });
        }
        if (s?.kind === "error") {
          // 131026: message undeliverable, the common permanent outcome
          return graphError(s.status, Number(s.code ?? 131026), s.message ?? "(#131026) Message undeliverable", {
            details: "Message Undeliverable.",
            headers: s.headers,
          });
        }
        const id = `wamid.${randomBytes(24).toString("base64url")}`;
        messages.push({ id, phoneNumberId: decodeURIComponent(match[1]!), to: body.to, body, request: rec });
        return successJson(s, 200, { messaging_product: "whatsapp", contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id }] });
      }),
    ],
    { port: opts.port },
  );
  return track(Object.assign(handleOf(core, "send"), { messages }), started, () => (messages.length = 0));
}

export async function stop(handle?: FakeWhatsappCloud): Promise<void> {
  await stopStarted(started, handle);
}

/** A status webhook body as Meta posts it to /webhooks/whatsapp (entry[].changes[].value.statuses[]). */
export function statusWebhookBody(opts: {
  phoneNumberId: string;
  messageId: string;
  status: "sent" | "delivered" | "read" | "failed";
  recipient: string;
  timestamp?: number;
  errors?: { code: number; title: string; message?: string }[];
  bizOpaqueCallbackData?: string;
}): string {
  const status: Record<string, unknown> = {
    id: opts.messageId,
    status: opts.status,
    timestamp: String(opts.timestamp ?? Math.floor(Date.now() / 1000)),
    recipient_id: opts.recipient,
  };
  if (opts.errors) status.errors = opts.errors;
  if (opts.bizOpaqueCallbackData) status.biz_opaque_callback_data = opts.bizOpaqueCallbackData;
  return JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: "102290129340398",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550783881", phone_number_id: opts.phoneNumberId },
              statuses: [status],
            },
          },
        ],
      },
    ],
  });
}

/** The X-Hub-Signature-256 value Meta sends for a raw body. */
export function signWebhook(rawBody: string | Uint8Array, appSecret: string): string {
  return `sha256=${createHmac("sha256", appSecret).update(rawBody).digest("hex")}`;
}
