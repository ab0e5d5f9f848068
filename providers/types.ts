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
    };

export type SendFailure = Extract<SendResult, { ok: false }>;
export type SendSuccess = Extract<SendResult, { ok: true }>;

export interface Provider {
  readonly name: string;
  /** Never throws: every outcome, including timeouts and network errors, is a SendResult. */
  send(msg: OutboundMessage, signal?: AbortSignal): Promise<SendResult>;
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
