// Generated from schemas/topics.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type TopicCreateBody = {
  /** string. 1-100 characters of a-z, 0-9, `_`, `.`, `:` and `-`; unique in the scope (409 topic_already_exists). */
  key?: unknown;
  /** string. 1-255 characters. */
  name?: unknown;
  [key: string]: unknown;
};

export type TopicKeyParams = {
  /** The topic's key */
  key: string;
};

export type TopicListQuery = {
  /** 1-100, default 20 */
  limit?: string;
  /** meta.cursor of the previous page */
  cursor?: string;
};

export type TopicListResponse = {
  data: {
    id: string;
    key: string;
    name: string;
    subscriber_count: number;
    created_at: string;
  }[];
  meta: {
    cursor: string | null;
    has_more: boolean;
  };
};

export type TopicMemberListResponse = {
  data: {
    id: string;
    external_id: string;
    email: string | null;
    phone: string | null;
    name: string | null;
    locale: string | null;
    timezone: string | null;
    custom_properties: { [key: string]: unknown };
    consent: {
      given_at: string | null;
      ip: string | null;
      method: string | null;
    } | null;
    created_at: string;
    updated_at: string;
  }[];
  meta: {
    cursor: string | null;
    has_more: boolean;
  };
};

export type TopicMembersAdded = {
  data: {
    /** Subscribers that became members */
    added: number;
    /** Subscribers that were members already */
    already: number;
    /** References that name no live subscriber, as given */
    not_found: string[];
  };
};

export type TopicMembersBody = {
  /** array of string. 1-1,000 subscribers, each an external_id or an id. */
  subscribers?: unknown;
  [key: string]: unknown;
};

export type TopicMembersRemoved = {
  data: {
    /** Members removed */
    removed: number;
    /** Subscribers that were not members */
    already: number;
    /** References that name no live subscriber, as given */
    not_found: string[];
  };
};

export type TopicRecord = {
  id: string;
  key: string;
  name: string;
  subscriber_count: number;
  created_at: string;
};

export type TopicResponse = {
  data: {
    id: string;
    key: string;
    name: string;
    subscriber_count: number;
    created_at: string;
  };
};
