// Generated from schemas/delivery-settings.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type DeliverySettingsBody = {
  /** string. IANA time zone used when a subscriber has none; default UTC. */
  timezone?: unknown;
  /** object or null. `{start:"HH:MM", end:"HH:MM", channels:[...]}`: a send on these channels inside the window (the subscriber's local time) is held (status scheduled) until it ends; start > end spans midnight. */
  quiet_hours?: unknown;
  /** array. `[{channel, limit, window}]`, window `<N>s|m|h|d` up to 30d: more sends than `limit` to one subscriber on the channel within the rolling window end suppressed (frequency_capped). */
  frequency_caps?: unknown;
  [key: string]: unknown;
};

export type DeliverySettingsRecord = {
  timezone: string;
  quiet_hours: {
    start: string;
    end: string;
    channels: string[];
  } | null;
  frequency_caps: {
    channel: string;
    limit: number;
    window: string;
  }[];
  /** null while the defaults apply */
  updated_at: string | null;
};

export type DeliverySettingsResponse = {
  data: {
    timezone: string;
    quiet_hours: {
      start: string;
      end: string;
      channels: string[];
    } | null;
    frequency_caps: {
      channel: string;
      limit: number;
      window: string;
    }[];
    /** null while the defaults apply */
    updated_at: string | null;
  };
};
