// Generated from schemas/suppressions.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type Suppression = {
  /** email address (lower-cased), FCM registration token, or Web Push endpoint URL */
  address: string;
  channel: string;
  /** bounced (hard bounce), complained (spam report), unregistered (FCM token or Web Push subscription gone) */
  reason: "bounced" | "complained" | "unregistered";
  /** the notification whose outcome listed it */
  notification_id: string | null;
  created_at: string;
};

export type SuppressionAddressParams = {
  /** the listed address, URL-encoded (ana%40example.com; a push endpoint with its slashes encoded) */
  address: string;
};

export type SuppressionList = {
  data: {
    /** email address (lower-cased), FCM registration token, or Web Push endpoint URL */
    address: string;
    channel: string;
    /** bounced (hard bounce), complained (spam report), unregistered (FCM token or Web Push subscription gone) */
    reason: "bounced" | "complained" | "unregistered";
    /** the notification whose outcome listed it */
    notification_id: string | null;
    created_at: string;
  }[];
  meta: {
    cursor: string | null;
    has_more: boolean;
  };
};

export type SuppressionListQuery = {
  /** 1-100, default 20 */
  limit?: string;
  /** meta.cursor of the previous page */
  cursor?: string;
  /** exact address (an email address case-insensitively) */
  address?: string;
  /** bounced (hard bounce), complained (spam report), unregistered (FCM token or Web Push subscription gone) */
  reason?: "bounced" | "complained" | "unregistered";
  /** email or push */
  channel?: string;
};

/** bounced (hard bounce), complained (spam report), unregistered (FCM token or Web Push subscription gone) */
export type SuppressionReasonName = "bounced" | "complained" | "unregistered";
