// The one contract between the channel sender and every delivery provider (DESIGN.md 7).
// Adapters receive everything through their channel config and deps; none reads the environment.

import type { Channel } from "../schemas/channels";
import type { ProviderFieldSpec } from "../schemas/providers";

/** A rendered message, ready for one provider call. */
export interface OutboundMessage {
  notificationId: string;
  tenantId: string;
  environment: string;
  channel: Channel;
  /** email address, E.164 phone, subscriber id (in_app), FCM token or PushSubscription JSON (push) */
  to: string;
  subject?: string;
  text?: string;
  html?: string;
  /** sms / whatsapp body (also the email text fallback) */
  content?: string;
  title?: string;
  body?: string;
  data?: Record<string, unknown>;
  providerTemplateId?: string;
  /** extra email headers, e.g. List-Unsubscribe and List-Unsubscribe-Post */
  headers?: Record<string, string>;
  /** DKIM key of the sender's verified domain */
  dkim?: { domainName: string; keySelector: string; privateKey: string };
  /**
   * Where the provider should report this message's delivery status (Twilio's StatusCallback):
   * our public /webhooks/<provider>/<channel configuration id>, built by domain/ from PUBLIC_URL.
   */
  statusCallbackUrl?: string;
}

export type SendResult =
  | {
      ok: true;
      providerMessageId: string;
      response: Record<string, unknown>;
      /** set when the provider's acceptance is already the final outcome (inbox, sandbox) */
      finalStatus?: "delivered" | "bounced";
    }
  | {
      ok: false;
      retryable: boolean;
      error: { code: string; message: string };
      retryAfterMs?: number;
      response?: Record<string, unknown>;
      /**
       * The recipient no longer exists at the provider (FCM UNREGISTERED, Web Push 404/410): the
       * address goes on the tenant's suppression list with reason `unregistered`.
       */
      recipientUnregistered?: true;
      /**
       * The provider refused this one request for something the caller gave (an invalid recipient,
       * a malformed or rejected message): permanent, and no sign of the provider's health, so a
       * circuit breaker does not count it as a failure of the provider.
       */
      callerFault?: true;
    };

export type SendFailure = Extract<SendResult, { ok: false }>;

/** What a provider's status callback can say about a message, in our words (DESIGN.md 6). */
export type ReceiptKind = "sent" | "delivered" | "failed" | "bounced" | "opened" | "clicked" | "complained";

/**
 * One status report of a provider's callback, read by the provider's adapter and applied by
 * domain/receipts/apply-receipt.ts to the notification whose provider message id is `messageId`.
 */
export interface ProviderReceipt {
  /** the provider message id as the send stored it (Twilio's SM... sid, SendGrid's X-Message-Id) */
  messageId: string;
  kind: ReceiptKind;
  /** when the provider says it happened (now when it does not say) */
  at: Date;
  /** the provider's own name for it, e.g. "undelivered", "spamreport" */
  providerStatus: string;
  /** failed, bounced: stored as the notification's error */
  error?: { code: string; message: string };
  /** bounced: SPEC's bounce_reason */
  bounceReason?: string;
  /** the address must not be sent to again: a hard bounce or a complaint */
  suppress?: "bounced" | "complained";
  /** opened, clicked: who opened or clicked */
  ip?: string | null;
  userAgent?: string | null;
  /** clicked */
  url?: string | null;
  /** complained: RFC 5965 feedback type, e.g. "abuse" */
  complaintType?: string;
  /** the provider's id of this event (SendGrid sg_event_id): a redelivered event is recorded once */
  eventId?: string;
}
export type SendSuccess = Extract<SendResult, { ok: true }>;

/** What a provider said when asked whether it can be reached and accepts the credentials (no message sent). */
export type VerifyResult =
  | { ok: true; message: string; response: Record<string, unknown> }
  | { ok: false; error: { code: string; message: string }; response?: Record<string, unknown> };

export interface Provider {
  readonly name: string;
  /** Never throws: every outcome, including timeouts and network errors, is a SendResult. */
  send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult>;
  /**
   * Connects and authenticates without sending (SMTP: EHLO, STARTTLS, AUTH), for the channel test.
   * Never throws. Providers whose API has no such call leave it out; the test then sends instead.
   */
  verify?(signal?: AbortSignal): Promise<VerifyResult>;
}

export interface ProviderDeps {
  /** in-app delivery; may throw an error carrying `permanent: true` (and a `code`) to fail without retry */
  inbox?: { deliver(msg: OutboundMessage): Promise<{ itemId: string }> };
  /** per-call deadline, default 10 000 ms */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /**
   * webpush endpoints come from tenants, so plain http (local fake push services in tests) is
   * refused unless the host enables it
   */
  allowHttpEndpoints?: boolean;
  /**
   * TLS trust for the HTTP/2 providers (apns) when they reach a server whose certificate is not
   * publicly trusted: tests point them at a local fake with its own certificate
   */
  tls?: { ca: string | Buffer; servername?: string };
}

export type ProviderCredentials = Record<string, unknown>;
export type ProviderSettings = Record<string, unknown>;

export interface ProviderConfig {
  credentials: ProviderCredentials;
  settings: ProviderSettings;
}

/** name, required, description and JSON type: GET /v1/providers serves these as they are. */
export type FieldSpec = ProviderFieldSpec;

/** field path ("credentials.api_key", "settings.from_email") -> messages; {} when valid */
export type ValidationErrors = Record<string, string[]>;

export interface ProviderDefinition {
  name: string;
  channels: Channel[];
  defaultRateLimitPerSecond: number;
  credentialFields: FieldSpec[];
  settingFields: FieldSpec[];
  validate(credentials: ProviderCredentials, settings: ProviderSettings): ValidationErrors;
  create(config: ProviderConfig, deps?: ProviderDeps): Provider;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
