// SES delivery events as Amazon SNS delivers them over HTTPS: the SNS message signature checked
// against its signing certificate (fetched from SNS, cached), and each SES event read as a receipt.
import { createPublicKey, verify, type KeyObject } from "node:crypto";
import type { ProviderReceipt } from "../types";

/** The fields of an SNS HTTP(S) message body (Notification, SubscriptionConfirmation, UnsubscribeConfirmation). */
export interface SnsMessage {
  Type: string;
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: string;
  Signature: string;
  SigningCertURL: string;
  Subject?: string;
  SubscribeURL?: string;
  Token?: string;
}

const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

/** An SNS body, or a message naming what is missing. */
export function readSnsMessage(raw: unknown): SnsMessage | string {
  const m = (raw ?? {}) as Record<string, unknown>;
  for (const f of ["Type", "MessageId", "TopicArn", "Message", "Timestamp", "SignatureVersion", "Signature", "SigningCertURL"]) {
    if (typeof m[f] !== "string" || m[f] === "") return `${f} is required`;
  }
  return m as unknown as SnsMessage;
}

/**
 * Where a signing certificate may come from: https://sns.<region>.amazonaws.com/....pem only (a body
 * naming any other URL is forged). `allowLocal` (tests only) also admits http://127.0.0.1 and localhost.
 */
export function snsUrlAllowed(url: string, opts: { allowLocal?: boolean; pem?: boolean } = {}): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (opts.pem && !u.pathname.endsWith(".pem")) return false;
  if (u.protocol === "https:" && SNS_HOST.test(u.hostname) && u.port === "") return true;
  return opts.allowLocal === true && (u.hostname === "127.0.0.1" || u.hostname === "localhost");
}

/** The string SNS signs: the listed fields, each as "Name\nvalue\n", in this order (Subject only when present). */
export function snsStringToSign(m: SnsMessage): string {
  const fields =
    m.Type === "Notification"
      ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
      : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
  let out = "";
  for (const f of fields) {
    const v = (m as unknown as Record<string, unknown>)[f];
    if (typeof v === "string") out += `${f}\n${v}\n`;
  }
  return out;
}

const certificates = new Map<string, Promise<KeyObject | null>>();
const MAX_CACHED_CERTIFICATES = 64;

/** The certificate at an allowed URL, fetched once per process (SNS rotates them rarely); null when unusable. */
export function signingCertificate(url: string, fetchFn: typeof fetch = fetch, timeoutMs = 5000): Promise<KeyObject | null> {
  const cached = certificates.get(url);
  if (cached) return cached;
  const loading = (async () => {
    try {
      const res = await fetchFn(url, { signal: AbortSignal.timeout(timeoutMs), redirect: "error" });
      if (!res.ok) return null;
      const pem = await res.text();
      if (!pem.includes("BEGIN CERTIFICATE") || pem.length > 16_384) return null;
      return createPublicKey(pem);
    } catch {
      return null;
    }
  })();
  if (certificates.size >= MAX_CACHED_CERTIFICATES) certificates.delete(certificates.keys().next().value!);
  certificates.set(url, loading);
  // a failed fetch is not remembered: the next message tries again
  void loading.then((k) => {
    if (!k && certificates.get(url) === loading) certificates.delete(url);
  });
  return loading;
}

/**
 * Checks an SNS message's signature (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA) against its
 * signing certificate; "certificate_unavailable" when an allowed certificate URL could not be read
 * (a passing network fault: SNS should retry, not be told the message is forged).
 */
export async function verifySnsMessage(m: SnsMessage, opts: { allowLocal?: boolean; fetch?: typeof fetch } = {}): Promise<boolean | "certificate_unavailable"> {
  if (!snsUrlAllowed(m.SigningCertURL, { allowLocal: opts.allowLocal, pem: true })) return false;
  const algorithm = m.SignatureVersion === "1" ? "RSA-SHA1" : m.SignatureVersion === "2" ? "RSA-SHA256" : null;
  if (!algorithm) return false;
  const key = await signingCertificate(m.SigningCertURL, opts.fetch);
  if (!key) return "certificate_unavailable";
  try {
    return verify(algorithm, Buffer.from(snsStringToSign(m), "utf8"), key, Buffer.from(m.Signature, "base64"));
  } catch {
    return false;
  }
}

/** Confirms a subscription by visiting its SubscribeURL (the caller checked it is an SNS URL); true on 2xx. */
export async function confirmSnsSubscription(url: string, fetchFn: typeof fetch = fetch): Promise<boolean> {
  try {
    const res = await fetchFn(url, { signal: AbortSignal.timeout(10_000), redirect: "error" });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const when = (v: unknown, now: Date): Date => {
  const t = typeof v === "string" ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? now : new Date(t);
};

/**
 * One SES event (configuration-set event publishing: `eventType`; identity notifications:
 * `notificationType`) in our words, or null: Send -> sent, Delivery -> delivered, Bounce -> bounced
 * (Permanent suppresses), Complaint -> complained, Reject / Rendering Failure -> failed, Open, Click;
 * DeliveryDelay and others null. The message is `mail.messageId`, SendEmail's MessageId.
 */
export function sesReceipt(event: unknown, eventId: string | undefined, now = new Date()): ProviderReceipt | null {
  const e = (event ?? {}) as Record<string, any>;
  const type = str(e.eventType) ?? str(e.notificationType);
  const messageId = str(e.mail?.messageId);
  if (!type || !messageId) return null;
  const base = { messageId, providerStatus: type, ...(eventId ? { eventId } : {}) };
  switch (type) {
    case "Send":
      return { ...base, kind: "sent", at: when(e.mail?.timestamp, now) };
    case "Delivery":
      return { ...base, kind: "delivered", at: when(e.delivery?.timestamp, now) };
    case "Bounce": {
      const b = e.bounce ?? {};
      const bounceType = str(b.bounceType) ?? "Undetermined";
      const recipient = Array.isArray(b.bouncedRecipients) ? b.bouncedRecipients[0] : undefined;
      const reason = str(recipient?.diagnosticCode) ?? `${bounceType} bounce${str(b.bounceSubType) ? ` (${b.bounceSubType})` : ""}`;
      const permanent = bounceType === "Permanent";
      return {
        ...base,
        providerStatus: `Bounce:${bounceType}`,
        kind: "bounced",
        at: when(b.timestamp, now),
        bounceReason: reason,
        error: { code: `ses_bounce_${bounceType.toLowerCase()}`, message: reason },
        ...(permanent ? { suppress: "bounced" as const } : {}),
      };
    }
    case "Complaint": {
      const c = e.complaint ?? {};
      return { ...base, kind: "complained", at: when(c.timestamp, now), complaintType: str(c.complaintFeedbackType) ?? "abuse", suppress: "complained" };
    }
    case "Reject":
      return { ...base, kind: "failed", at: now, error: { code: "ses_reject", message: str(e.reject?.reason) ?? "SES rejected the email" } };
    case "Rendering Failure":
      return { ...base, kind: "failed", at: now, error: { code: "ses_rendering_failure", message: str(e.failure?.errorMessage) ?? "SES could not render the template" } };
    case "Open":
      return { ...base, kind: "opened", at: when(e.open?.timestamp, now), ip: str(e.open?.ipAddress) ?? null, userAgent: str(e.open?.userAgent) ?? null };
    case "Click":
      return { ...base, kind: "clicked", at: when(e.click?.timestamp, now), ip: str(e.click?.ipAddress) ?? null, userAgent: str(e.click?.userAgent) ?? null, url: str(e.click?.link) ?? null };
    default:
      return null;
  }
}
