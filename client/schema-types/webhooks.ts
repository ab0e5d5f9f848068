// Generated from schemas/webhooks.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type CreateWebhookBody = {
  /** http(s) address of the receiver, without credentials. Loopback, private, link-local, multicast and unspecified addresses are refused (also after DNS resolution) unless the service runs with WEBHOOK_ALLOW_PRIVATE=true. */
  url: string;
  /** Event types this webhook receives */
  events: ("notification.created" | "notification.sent" | "notification.delivered" | "notification.failed" | "notification.bounced" | "notification.opened" | "notification.clicked" | "notification.complained" | "notification.test" | "workflow.triggered" | "workflow.step.completed" | "workflow.step.failed" | "workflow.completed" | "broadcast.completed" | "inbox.notification.received" | "inbox.notification.read" | "subscriber.preferences_updated" | "quota.warning" | "quota.exceeded" | "channel.provider.circuit_opened" | "channel.provider.circuit_closed")[];
  /** Signing secret to use instead of a generated one. `whsec_<base64 of 24-64 bytes>` keys webhook-signature with the decoded bytes (Standard Webhooks); any other string keys both signatures with its own bytes. */
  secret?: string;
  description?: string | null;
  /** default true */
  active?: boolean;
};

export type DeliveryListResponse = {
  data: {
    id: string;
    webhook_id: string;
    /** The event's id: the body's `id` and the webhook-id header */
    event_id: string;
    event_type: string;
    /** 1 for the first attempt of this event to this webhook */
    attempt: number;
    status: "success" | "failed" | "pending";
    response_status: number | null;
    response_body: string | null;
    duration_ms: number | null;
    error: {
      code: string;
      message: string;
    } | null;
    next_retry_at: string | null;
    created_at: string;
  }[];
  meta: {
    cursor: string | null;
    has_more: boolean;
  };
};

export type DeliveryParams = {
  id: string;
  delivery_id: string;
};

export type DeliveryResponse = {
  data: {
    id: string;
    webhook_id: string;
    /** The event's id: the body's `id` and the webhook-id header */
    event_id: string;
    event_type: string;
    /** 1 for the first attempt of this event to this webhook */
    attempt: number;
    status: "success" | "failed" | "pending";
    response_status: number | null;
    response_body: string | null;
    duration_ms: number | null;
    error: {
      code: string;
      message: string;
    } | null;
    next_retry_at: string | null;
    created_at: string;
  };
};

export type DeliveryStatusLiteral = "success" | "failed" | "pending";

export type ListDeliveriesQuery = {
  /** 1-100, default 20 */
  limit?: string;
  /** meta.cursor of the previous page */
  cursor?: string;
  status?: "success" | "failed" | "pending";
  /** Only the attempts of this event */
  event_id?: string;
};

export type ReplayResult = {
  /** Events queued for one more attempt each */
  queued: number;
  /** true when the window held more than one call queues (10,000): call again with a later since */
  truncated: boolean;
  last_event_at: string | null;
};

export type ReplayResultResponse = {
  data: {
    /** Events queued for one more attempt each */
    queued: number;
    /** true when the window held more than one call queues (10,000): call again with a later since */
    truncated: boolean;
    last_event_at: string | null;
  };
};

export type ReplayWebhookBody = {
  /** Start of the window (ISO 8601, inclusive) */
  since: string;
  /** End of the window (exclusive); default now */
  until?: string;
  /** Only these types (default: the webhook's) */
  events?: ("notification.created" | "notification.sent" | "notification.delivered" | "notification.failed" | "notification.bounced" | "notification.opened" | "notification.clicked" | "notification.complained" | "notification.test" | "workflow.triggered" | "workflow.step.completed" | "workflow.step.failed" | "workflow.completed" | "broadcast.completed" | "inbox.notification.received" | "inbox.notification.read" | "subscriber.preferences_updated" | "quota.warning" | "quota.exceeded" | "channel.provider.circuit_opened" | "channel.provider.circuit_closed")[];
};

export type TestResult = {
  /** The receiver answered 2xx */
  success: boolean;
  status_code: number | null;
  duration_ms: number;
  delivery_id: string;
  error: {
    code: string;
    message: string;
  } | null;
};

export type TestResultResponse = {
  data: {
    /** The receiver answered 2xx */
    success: boolean;
    status_code: number | null;
    duration_ms: number;
    delivery_id: string;
    error: {
      code: string;
      message: string;
    } | null;
  };
};

export type TestWebhookBody = {
  /** Event type whose data shape the test payload carries (default: none) */
  event?: "notification.created" | "notification.sent" | "notification.delivered" | "notification.failed" | "notification.bounced" | "notification.opened" | "notification.clicked" | "notification.complained" | "notification.test" | "workflow.triggered" | "workflow.step.completed" | "workflow.step.failed" | "workflow.completed" | "broadcast.completed" | "inbox.notification.received" | "inbox.notification.read" | "subscriber.preferences_updated" | "quota.warning" | "quota.exceeded" | "channel.provider.circuit_opened" | "channel.provider.circuit_closed";
  /** Send this one test to another URL (same rules as url) */
  override_url?: string;
};

export type UpdateWebhookBody = {
  /** http(s) address of the receiver, without credentials. Loopback, private, link-local, multicast and unspecified addresses are refused (also after DNS resolution) unless the service runs with WEBHOOK_ALLOW_PRIVATE=true. */
  url?: string;
  /** Event types this webhook receives */
  events?: ("notification.created" | "notification.sent" | "notification.delivered" | "notification.failed" | "notification.bounced" | "notification.opened" | "notification.clicked" | "notification.complained" | "notification.test" | "workflow.triggered" | "workflow.step.completed" | "workflow.step.failed" | "workflow.completed" | "broadcast.completed" | "inbox.notification.received" | "inbox.notification.read" | "subscriber.preferences_updated" | "quota.warning" | "quota.exceeded" | "channel.provider.circuit_opened" | "channel.provider.circuit_closed")[];
  /** false stops deliveries, scheduled retries included; true resumes and clears disabled_reason */
  active?: boolean;
  description?: string | null;
};

export type Webhook = {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  description: string | null;
  disabled_reason: string | null;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
};

export const WEBHOOK_EVENT_TYPES = ["notification.created","notification.sent","notification.delivered","notification.failed","notification.bounced","notification.opened","notification.clicked","notification.complained","notification.test","workflow.triggered","workflow.step.completed","workflow.step.failed","workflow.completed","broadcast.completed","inbox.notification.received","inbox.notification.read","subscriber.preferences_updated","quota.warning","quota.exceeded","channel.provider.circuit_opened","channel.provider.circuit_closed"] as const;

export type WebhookCreated = {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  description: string | null;
  disabled_reason: string | null;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
  /** Shown only in this response */
  signing_secret: string;
};

export type WebhookCreatedResponse = {
  data: {
    id: string;
    url: string;
    events: string[];
    active: boolean;
    description: string | null;
    disabled_reason: string | null;
    disabled_at: string | null;
    created_at: string;
    updated_at: string;
    /** Shown only in this response */
    signing_secret: string;
  };
};

export type WebhookDelivery = {
  id: string;
  webhook_id: string;
  /** The event's id: the body's `id` and the webhook-id header */
  event_id: string;
  event_type: string;
  /** 1 for the first attempt of this event to this webhook */
  attempt: number;
  status: "success" | "failed" | "pending";
  response_status: number | null;
  response_body: string | null;
  duration_ms: number | null;
  error: {
    code: string;
    message: string;
  } | null;
  next_retry_at: string | null;
  created_at: string;
};

/** An event type of SPEC's table (notification.*, workflow.*, inbox.*) */
export type WebhookEventTypeLiteral = "notification.created" | "notification.sent" | "notification.delivered" | "notification.failed" | "notification.bounced" | "notification.opened" | "notification.clicked" | "notification.complained" | "notification.test" | "workflow.triggered" | "workflow.step.completed" | "workflow.step.failed" | "workflow.completed" | "broadcast.completed" | "inbox.notification.received" | "inbox.notification.read" | "subscriber.preferences_updated" | "quota.warning" | "quota.exceeded" | "channel.provider.circuit_opened" | "channel.provider.circuit_closed";

export type WebhookListResponse = {
  data: {
    id: string;
    url: string;
    events: string[];
    active: boolean;
    description: string | null;
    disabled_reason: string | null;
    disabled_at: string | null;
    created_at: string;
    updated_at: string;
  }[];
};

export type WebhookParams = {
  id: string;
};

export type WebhookResponse = {
  data: {
    id: string;
    url: string;
    events: string[];
    active: boolean;
    description: string | null;
    disabled_reason: string | null;
    disabled_at: string | null;
    created_at: string;
    updated_at: string;
  };
};
