// Provider status callbacks (/webhooks/<twilio|sendgrid|mailgun|...>/:channel_id, /webhooks/whatsapp):
// each verified by the provider's own scheme with the secret of the configuration that decides the tenant.
import { AppError } from "../../basics/errors";
import { mailgunReceipt, verifyMailgunSignature } from "../../providers/email/mailgun";
import { postmarkReceipt, verifyPostmarkBasicAuth } from "../../providers/email/postmark";
import { resendReceipt, verifySvixSignature } from "../../providers/email/resend";
import { sendgridReceipt, verifySendgridSignature } from "../../providers/email/sendgrid";
import { twilioReceipt, verifyTwilioSignature } from "../../providers/sms/twilio";
import { verifyVonageWebhook, vonageReceipt } from "../../providers/sms/vonage";
import type { ProviderReceipt } from "../../providers/types";
import { verifyWhatsappSignature, whatsappReceipt, type WhatsappStatus } from "../../providers/whatsapp/whatsapp-cloud";
import { loadChannelConfig, loadChannelConfigById, whatsappScopesForPhone, type ChannelConfig } from "../../store/channels";
import type { Scope } from "../../store/db";
import { isUuid } from "../../store/ids";
import { applyReceipt, CALLBACK_MAX_AGE_MS } from "./apply-receipt";

const invalidSignature = (message: string) => new AppError("invalid_signature", message);
const unknownMessage = (what: string) =>
  new AppError("notification_not_found", `No notification of this channel configuration has ${what}; nothing was changed`);

/**
 * The configuration a callback URL names, which decides the tenant, the environment and the secret
 * that must have signed it: an id of another provider is as unknown as a missing one.
 */
async function callbackChannel(channelId: string, provider: string): Promise<ChannelConfig & Scope> {
  const cfg = isUuid(channelId) ? await loadChannelConfigById(channelId) : null;
  if (!cfg || cfg.provider !== provider) {
    throw new AppError("channel_not_found", `No ${provider} channel configuration has the id in this callback URL`);
  }
  return cfg;
}

export interface CallbackOutcome {
  /** reports in the request */
  received: number;
  /** reports that named a notification of this configuration (changed or not) */
  matched: number;
  /** reports that changed something */
  applied: number;
  /** reports that say nothing about delivery or engagement (e.g. SendGrid deferred) */
  ignored: number;
}

async function applyAll(cfg: Scope & { channel: string }, receipts: ProviderReceipt[], source: string) {
  let matched = 0;
  let applied = 0;
  // oldest first, so a batch that holds both `delivered` and `open` records them in their order
  for (const { messageId, ...r } of [...receipts].sort((a, b) => a.at.getTime() - b.at.getTime())) {
    const res = await applyReceipt(
      { kind: "message", tenantId: cfg.tenantId, environment: cfg.environment, channel: cfg.channel, messageId },
      { ...r, source },
    );
    if (res.found) matched++;
    if (res.changed) applied++;
  }
  return { matched, applied };
}

/**
 * Twilio's status callback for SMS and WhatsApp. Twilio signs no timestamp, so an old callback
 * replayed cannot be told by its age: it changes nothing because the moves are idempotent (a
 * status already reached, or passed, is not applied again and emits nothing).
 */
export async function twilioStatusCallback(q: { channelId: string; signedUrl: string; form: URLSearchParams; signature: string | null }): Promise<CallbackOutcome> {
  const cfg = await callbackChannel(q.channelId, "twilio");
  const token = typeof cfg.credentials.auth_token === "string" ? cfg.credentials.auth_token : "";
  if (!verifyTwilioSignature(q.signedUrl, q.form, q.signature, token)) {
    throw invalidSignature("X-Twilio-Signature does not match this URL and these parameters under the channel's auth token");
  }
  const receipt = twilioReceipt(q.form);
  if (!receipt) return { received: 1, matched: 0, applied: 0, ignored: 1 };
  const { matched, applied } = await applyAll(cfg, [receipt], "twilio");
  if (matched === 0) throw unknownMessage(`the message sid ${JSON.stringify(receipt.messageId.slice(0, 64))}`);
  return { received: 1, matched, applied, ignored: 0 };
}

/**
 * SendGrid's Event Webhook: a batch of events signed (ECDSA P-256) over the timestamp and the raw
 * body with the key of `settings.event_webhook_public_key`. A timestamp more than 5 minutes away is a
 * replay (or a broken clock) and changes nothing; a batch none of whose events names a notification
 * of this configuration is 404 and changes nothing.
 */
export async function sendgridEventWebhook(q: {
  channelId: string;
  rawBody: string;
  body: unknown;
  signature: string | null;
  timestamp: string | null;
  now?: number;
}): Promise<CallbackOutcome> {
  const cfg = await callbackChannel(q.channelId, "sendgrid");
  const key = cfg.settings.event_webhook_public_key;
  if (typeof key !== "string" || key === "") {
    throw invalidSignature("This channel has no settings.event_webhook_public_key: enable the signed Event Webhook in SendGrid and store its key");
  }
  if (!verifySendgridSignature(key, q.rawBody, q.signature, q.timestamp)) {
    throw invalidSignature("X-Twilio-Email-Event-Webhook-Signature does not verify the timestamp and body under the channel's public key");
  }
  refuseStale(q.timestamp, "X-Twilio-Email-Event-Webhook-Timestamp", q.now);
  if (!Array.isArray(q.body)) throw new AppError("validation_failed", "Validation failed", { body: ["must be a JSON array of events"] });
  const receipts = q.body.map((e) => sendgridReceipt(e)).filter((r): r is ProviderReceipt => r !== null);
  const ignored = q.body.length - receipts.length;
  if (receipts.length === 0) return { received: q.body.length, matched: 0, applied: 0, ignored };
  const { matched, applied } = await applyAll(cfg, receipts, "sendgrid");
  if (matched === 0) throw unknownMessage("any of these sg_message_ids");
  return { received: q.body.length, matched, applied, ignored };
}

/** The raw JSON body of a callback the route's schema already accepted: every field the vendor sent. */
function parseJsonObject(raw: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(raw);
    return v && typeof v === "object" && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/** A callback's own timestamp (Unix seconds) more than CALLBACK_MAX_AGE_MS from now: a replay; nothing changes. */
function refuseStale(timestamp: string | null | undefined, header: string, now = Date.now()): void {
  const at = /^\d{1,12}$/.test(timestamp ?? "") ? Number(timestamp) * 1000 : NaN;
  if (!(Math.abs(now - at) <= CALLBACK_MAX_AGE_MS)) {
    throw new AppError(
      "callback_expired",
      `${header} is more than ${CALLBACK_MAX_AGE_MS / 1000} s from now: a replayed (or delayed) request; nothing was changed`,
    );
  }
}

/**
 * Mailgun's webhooks: one event per request, {signature: {timestamp, token, signature}, "event-data"},
 * the signature an HMAC-SHA256 of timestamp + token under `credentials.webhook_signing_key`. A
 * timestamp more than 5 minutes away is a replay and changes nothing.
 */
export async function mailgunWebhook(q: { channelId: string; rawBody: string; now?: number }): Promise<CallbackOutcome> {
  const cfg = await callbackChannel(q.channelId, "mailgun");
  const key = cfg.credentials.webhook_signing_key;
  if (typeof key !== "string" || key === "") {
    throw invalidSignature("This channel has no credentials.webhook_signing_key: store Mailgun's HTTP webhook signing key in the channel");
  }
  const body = (parseJsonObject(q.rawBody) ?? {}) as { signature?: { timestamp?: unknown; token?: unknown; signature?: unknown }; "event-data"?: unknown };
  if (!verifyMailgunSignature(key, body.signature)) {
    throw invalidSignature("signature.signature is not the HMAC-SHA256 of signature.timestamp + signature.token under the channel's webhook signing key");
  }
  refuseStale(body.signature!.timestamp as string, "signature.timestamp", q.now);
  const receipt = mailgunReceipt(body["event-data"]);
  if (!receipt) return { received: 1, matched: 0, applied: 0, ignored: 1 };
  const { matched, applied } = await applyAll(cfg, [receipt], "mailgun");
  if (matched === 0) throw unknownMessage(`the Message-Id ${JSON.stringify(receipt.messageId.slice(0, 128))}`);
  return { received: 1, matched, applied, ignored: 0 };
}

/**
 * Postmark's webhooks: one record per request, unsigned; the webhook URL carries basic auth
 * credentials, which must be the channel's webhook_username and webhook_password. Postmark signs no
 * timestamp: a replay changes nothing because every move is idempotent.
 */
export async function postmarkWebhook(q: { channelId: string; rawBody: string; authorization: string | null }): Promise<CallbackOutcome> {
  const cfg = await callbackChannel(q.channelId, "postmark");
  const user = typeof cfg.credentials.webhook_username === "string" ? cfg.credentials.webhook_username : "";
  const password = typeof cfg.credentials.webhook_password === "string" ? cfg.credentials.webhook_password : "";
  if (!user || !password) {
    throw invalidSignature("This channel has no credentials.webhook_username and webhook_password: set them and put them in the webhook URL");
  }
  if (!verifyPostmarkBasicAuth(q.authorization, user, password)) {
    throw invalidSignature("The Authorization header is not the channel's webhook credentials (https://<webhook_username>:<webhook_password>@host/... in Postmark)");
  }
  const receipt = postmarkReceipt(parseJsonObject(q.rawBody));
  if (!receipt) return { received: 1, matched: 0, applied: 0, ignored: 1 };
  const { matched, applied } = await applyAll(cfg, [receipt], "postmark");
  if (matched === 0) throw unknownMessage(`the MessageID ${JSON.stringify(receipt.messageId.slice(0, 64))}`);
  return { received: 1, matched, applied, ignored: 0 };
}

/**
 * Resend's webhooks, signed the Svix way with `credentials.webhook_secret`: svix-signature over
 * svix-id, svix-timestamp and the raw body. A timestamp more than 5 minutes away is a replay; a
 * redelivery keeps its svix-id, recorded as the event id, so it is applied once.
 */
export async function resendWebhook(q: { channelId: string; rawBody: string; id: string | null; timestamp: string | null; signature: string | null; now?: number }): Promise<CallbackOutcome> {
  const cfg = await callbackChannel(q.channelId, "resend");
  const secret = cfg.credentials.webhook_secret;
  if (typeof secret !== "string" || secret === "") {
    throw invalidSignature("This channel has no credentials.webhook_secret: store the webhook's signing secret (whsec_...) in the channel");
  }
  if (!verifySvixSignature(secret, { id: q.id, timestamp: q.timestamp, signature: q.signature, rawBody: q.rawBody })) {
    throw invalidSignature("svix-signature does not verify svix-id, svix-timestamp and the body under the channel's webhook secret");
  }
  refuseStale(q.timestamp, "svix-timestamp", q.now);
  const receipt = resendReceipt(parseJsonObject(q.rawBody), q.id ?? undefined);
  if (!receipt) return { received: 1, matched: 0, applied: 0, ignored: 1 };
  const { matched, applied } = await applyAll(cfg, [receipt], "resend");
  if (matched === 0) throw unknownMessage(`the email_id ${JSON.stringify(receipt.messageId.slice(0, 64))}`);
  return { received: 1, matched, applied, ignored: 0 };
}

/**
 * Vonage's status webhooks (Messages API): Authorization: Bearer <JWT HS256 under the account's
 * signature secret>, at most 5 minutes old, whose payload_hash is the SHA-256 of the body.
 */
export async function vonageStatusWebhook(q: { channelId: string; rawBody: string; authorization: string | null }): Promise<CallbackOutcome> {
  const cfg = await callbackChannel(q.channelId, "vonage");
  const secret = cfg.credentials.signature_secret;
  if (typeof secret !== "string" || secret === "") {
    throw invalidSignature("This channel has no credentials.signature_secret: store the Vonage account's signature secret in the channel");
  }
  if (!(await verifyVonageWebhook(secret, q.authorization, q.rawBody))) {
    throw invalidSignature("The Authorization JWT does not verify under the channel's signature secret, is older than 5 minutes, or its payload_hash is not the body's SHA-256");
  }
  const receipt = vonageReceipt(parseJsonObject(q.rawBody));
  if (!receipt) return { received: 1, matched: 0, applied: 0, ignored: 1 };
  const { matched, applied } = await applyAll(cfg, [receipt], "vonage");
  if (matched === 0) throw unknownMessage(`the message_uuid ${JSON.stringify(receipt.messageId.slice(0, 64))}`);
  return { received: 1, matched, applied, ignored: 0 };
}

function statusGroups(body: any): { phoneNumberId: string; statuses: WhatsappStatus[] }[] {
  const out: { phoneNumberId: string; statuses: WhatsappStatus[] }[] = [];
  for (const entry of Array.isArray(body?.entry) ? body.entry : []) {
    for (const change of Array.isArray(entry?.changes) ? entry.changes : []) {
      const value = change?.value;
      const phoneNumberId = value?.metadata?.phone_number_id;
      if (typeof phoneNumberId !== "string") continue;
      out.push({ phoneNumberId, statuses: Array.isArray(value?.statuses) ? value.statuses : [] });
    }
  }
  return out;
}

/**
 * WhatsApp Cloud status webhooks: every phone number id in the body must belong to a tenant whose
 * app secret verifies X-Hub-Signature-256. Unknown message ids are acknowledged: Meta's one webhook
 * also carries inbound messages and other apps' numbers, and it disables webhooks that keep failing.
 */
export async function whatsappStatusWebhook(q: { rawBody: string; body: unknown; signature: string | null }): Promise<{ updated: number }> {
  const groups = statusGroups(q.body);
  if (!q.rawBody || !q.signature || groups.length === 0) throw invalidSignature("X-Hub-Signature-256 does not match the body");
  const owners = new Map<string, Scope[]>();
  for (const phone of new Set(groups.map((g) => g.phoneNumberId))) {
    const verified: Scope[] = [];
    for (const scope of await whatsappScopesForPhone(phone)) {
      const cfg = await loadChannelConfig(scope.tenantId, scope.environment, "whatsapp");
      const secret = cfg?.credentials?.app_secret;
      if (typeof secret === "string" && verifyWhatsappSignature(q.rawBody, q.signature, secret)) verified.push(scope);
    }
    if (verified.length === 0) throw invalidSignature("X-Hub-Signature-256 does not match the body");
    owners.set(phone, verified);
  }
  let updated = 0;
  for (const g of groups) {
    const receipts = g.statuses.map((s) => whatsappReceipt(s)).filter((r): r is ProviderReceipt => r !== null);
    for (const scope of owners.get(g.phoneNumberId)!) {
      const { applied } = await applyAll({ ...scope, channel: "whatsapp" }, receipts, "whatsapp_cloud");
      updated += applied;
    }
  }
  return { updated };
}
