// Generated from schemas/channels.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type ChannelConfigRecord = {
  id: string;
  channel: string;
  provider: string;
  settings: { [key: string]: unknown };
  active: boolean;
  /** Names of the stored credentials; values are never returned */
  credential_keys: string[];
  created_at: string;
  updated_at: string;
};

export type ChannelCreateBody = {
  /** email, whatsapp, sms, in_app or push */
  channel: string;
  /** smtp, sendgrid, twilio, whatsapp_cloud, fcm, webpush, inbox or sandbox */
  provider: string;
  credentials?: { [key: string]: unknown };
  settings?: { [key: string]: unknown };
  active?: boolean;
};

export type ChannelListResponse = {
  data: {
    id: string;
    channel: string;
    provider: string;
    settings: { [key: string]: unknown };
    active: boolean;
    /** Names of the stored credentials; values are never returned */
    credential_keys: string[];
    created_at: string;
    updated_at: string;
  }[];
};

export type ChannelLiteral = "email" | "whatsapp" | "sms" | "in_app" | "push";

export type ChannelParams = {
  channel: string;
};

export type ChannelResponse = {
  data: {
    id: string;
    channel: string;
    provider: string;
    settings: { [key: string]: unknown };
    active: boolean;
    /** Names of the stored credentials; values are never returned */
    credential_keys: string[];
    created_at: string;
    updated_at: string;
  };
};

export const CHANNELS = ["email","whatsapp","sms","in_app","push"] as const;

export type ChannelTestBody = {
  /** Recipient of the test notification; default settings.test_recipient */
  to?: string;
};

export type ChannelTestResponse = {
  data: {
    /** what was checked worked: the provider was reached (and accepted the credentials), or accepted the test message */
    success: boolean;
    /** what happened, in the provider's words when it answered */
    message: string;
    /** connection: reached and authenticated without sending (SMTP); delivery: a test was sent; configuration: only the fields were checked */
    checked?: "connection" | "delivery" | "configuration";
    /** the test notification (delivery) */
    notification_id?: string;
    /** the provider's answer as recorded (credentials redacted) */
    provider_response?: { [key: string]: unknown };
  };
};

export type ChannelUpdateBody = {
  channel?: string;
  provider?: string;
  credentials?: { [key: string]: unknown };
  settings?: { [key: string]: unknown };
  active?: boolean;
};
