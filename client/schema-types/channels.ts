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
  /** The backup providers in order (credentials never; their key names only) */
  failover: {
    provider: string;
    settings: { [key: string]: unknown };
    credential_keys: string[];
  }[];
  /** GET /v1/channels/:channel: the primary and each backup with its circuit breaker's state */
  providers?: {
    provider: string;
    role: "primary" | "failover";
    circuit: "closed" | "open" | "half_open";
    /** when the circuit last opened (null while closed) */
    opened_at: string | null;
    /** failures in a row since the last answered call */
    failures: number;
    /** the provider's last failing answer (code: message) */
    last_error: string | null;
  }[];
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
  /** 0-3 backup providers, tried in order after the primary. Credentials are encrypted and never returned. On PUT the list replaces the stored one; an entry sent without credentials keeps those of the stored entry at the same position when its provider is the same. */
  failover?: {
    /** A provider serving this channel (the same vendor again is fine: say a second Twilio account) */
    provider: string;
    credentials?: { [key: string]: unknown };
    settings?: { [key: string]: unknown };
  }[];
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
    /** The backup providers in order (credentials never; their key names only) */
    failover: {
      provider: string;
      settings: { [key: string]: unknown };
      credential_keys: string[];
    }[];
    /** GET /v1/channels/:channel: the primary and each backup with its circuit breaker's state */
    providers?: {
      provider: string;
      role: "primary" | "failover";
      circuit: "closed" | "open" | "half_open";
      /** when the circuit last opened (null while closed) */
      opened_at: string | null;
      /** failures in a row since the last answered call */
      failures: number;
      /** the provider's last failing answer (code: message) */
      last_error: string | null;
    }[];
    created_at: string;
    updated_at: string;
  }[];
};

export type ChannelLiteral = "email" | "whatsapp" | "sms" | "in_app" | "push";

export type ChannelParams = {
  channel: string;
};

export type ChannelProviderState = {
  provider: string;
  role: "primary" | "failover";
  circuit: "closed" | "open" | "half_open";
  /** when the circuit last opened (null while closed) */
  opened_at: string | null;
  /** failures in a row since the last answered call */
  failures: number;
  /** the provider's last failing answer (code: message) */
  last_error: string | null;
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
    /** The backup providers in order (credentials never; their key names only) */
    failover: {
      provider: string;
      settings: { [key: string]: unknown };
      credential_keys: string[];
    }[];
    /** GET /v1/channels/:channel: the primary and each backup with its circuit breaker's state */
    providers?: {
      provider: string;
      role: "primary" | "failover";
      circuit: "closed" | "open" | "half_open";
      /** when the circuit last opened (null while closed) */
      opened_at: string | null;
      /** failures in a row since the last answered call */
      failures: number;
      /** the provider's last failing answer (code: message) */
      last_error: string | null;
    }[];
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
    /** With backup providers: each provider's own result, the primary first (a backup's test with a recipient goes straight through its adapter); success is then true only when every provider passed */
    providers?: {
      provider: string;
      role: "primary" | "failover";
      success: boolean;
      message: string;
      checked?: "connection" | "delivery" | "configuration";
      notification_id?: string;
      provider_response?: { [key: string]: unknown };
    }[];
  };
};

export type ChannelUpdateBody = {
  channel?: string;
  provider?: string;
  credentials?: { [key: string]: unknown };
  settings?: { [key: string]: unknown };
  active?: boolean;
  /** 0-3 backup providers, tried in order after the primary. Credentials are encrypted and never returned. On PUT the list replaces the stored one; an entry sent without credentials keeps those of the stored entry at the same position when its provider is the same. */
  failover?: {
    /** A provider serving this channel (the same vendor again is fine: say a second Twilio account) */
    provider: string;
    credentials?: { [key: string]: unknown };
    settings?: { [key: string]: unknown };
  }[];
};

export type CircuitStateLiteral = "closed" | "open" | "half_open";

export type FailoverEntryBody = {
  /** A provider serving this channel (the same vendor again is fine: say a second Twilio account) */
  provider: string;
  credentials?: { [key: string]: unknown };
  settings?: { [key: string]: unknown };
};
