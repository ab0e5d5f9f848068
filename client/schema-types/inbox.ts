// Generated from schemas/inbox.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type CategoryState = {
  /** A preference category's key, or "other" for choices under keys the tenant does not define */
  key: string;
  name: string;
  description: string | null;
  /** Cannot be turned off: always sent */
  required: boolean;
  channels: {
    channel: string;
    enabled: boolean;
    /** true for a required category */
    locked: boolean;
    /** required, subscriber (their own choice) or default (the category's default) */
    source: string;
  }[];
};

export type EffectivePreferencesResponse = {
  data: {
    /** A preference category's key, or "other" for choices under keys the tenant does not define */
    key: string;
    name: string;
    description: string | null;
    /** Cannot be turned off: always sent */
    required: boolean;
    channels: {
      channel: string;
      enabled: boolean;
      /** true for a required category */
      locked: boolean;
      /** required, subscriber (their own choice) or default (the category's default) */
      source: string;
    }[];
  }[];
};

export type InboxItem = {
  id: string;
  notification_id: string | null;
  title: string | null;
  body: string | null;
  data: { [key: string]: unknown };
  read: boolean;
  read_at: string | null;
  created_at: string;
};

export type InboxItemParams = {
  /** Subscriber id or external_id */
  id: string;
  /** In-app item id or notification id */
  notif_id: string;
};

export type InboxItemResponse = {
  data: {
    id: string;
    notification_id: string | null;
    title: string | null;
    body: string | null;
    data: { [key: string]: unknown };
    read: boolean;
    read_at: string | null;
    created_at: string;
  };
};

export type InboxListQuery = {
  /** 1-100, default 20 */
  limit?: string;
  /** >= 0, default 0 */
  offset?: string;
  /** true to list unread items only */
  unread_only?: string;
};

export type InboxListResponse = {
  data: {
    id: string;
    notification_id: string | null;
    title: string | null;
    body: string | null;
    data: { [key: string]: unknown };
    read: boolean;
    read_at: string | null;
    created_at: string;
  }[];
  meta: {
    total: number;
    limit: number;
    offset: number;
    unread_count: number;
  };
};

export type InboxParams = {
  /** Subscriber id or external_id */
  id: string;
};

/** One frame per event: id, event (type) and data (JSON {id, type, created_at, data}); a comment line every 15 s */
export type InboxStream = string;

export type Preference = {
  /** A notification category, or "all" */
  category: string;
  channel: "email" | "whatsapp" | "sms" | "in_app" | "push";
  enabled: boolean;
};

export type PreferencesBody = {
  preferences: {
    /** A notification category, or "all" */
    category: string;
    channel: "email" | "whatsapp" | "sms" | "in_app" | "push";
    enabled: boolean;
  }[];
};

export type PreferencesResponse = {
  data: {
    /** A notification category, or "all" */
    category: string;
    channel: "email" | "whatsapp" | "sms" | "in_app" | "push";
    enabled: boolean;
  }[];
};

export type ReadAllResponse = {
  data: {
    updated: number;
  };
};

export type UnreadCountResponse = {
  data: {
    count: number;
  };
};
