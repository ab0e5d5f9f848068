// The event types a webhook may subscribe to (SPEC "Events", once for every layer) and the TypeBox
// schemas of the webhook routes (SPEC "Webhooks", DESIGN.md 6): requests, records, deliveries.
import { t, type Static } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import { WebhookEventType as EventTypeUnion } from "./webhook-events";

/** SPEC's event table (schemas/webhook-events.ts, shared with the client), described for the OpenAPI document. */
export const WebhookEventTypeLiteral = t.Union(EventTypeUnion.anyOf, { description: "An event type of SPEC's table (notification.*, workflow.*, inbox.*)" });
export type WebhookEventType = Static<typeof WebhookEventTypeLiteral>;
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = EventTypeUnion.anyOf.map((l) => l.const);

/** SPEC Limits. */
export const MAX_WEBHOOKS_PER_TENANT = 10;
export const MAX_URL_LENGTH = 2048;

const Nullable = <T extends TSchema>(s: T) => t.Union([s, t.Null()]);

// ---------------------------------------------------------------------------------------------
// Requests

const Url = t.String({
  maxLength: MAX_URL_LENGTH,
  description:
    "http(s) address of the receiver, without credentials. Loopback, private, link-local, multicast and unspecified addresses are refused (also after DNS resolution) unless the service runs with WEBHOOK_ALLOW_PRIVATE=true.",
});
const Events = t.Array(WebhookEventTypeLiteral, { minItems: 1, maxItems: EventTypeUnion.anyOf.length, description: "Event types this webhook receives" });
const Description = Nullable(t.String({ maxLength: 500 }));

export const CreateWebhookBody = t.Object(
  {
    url: Url,
    events: Events,
    secret: t.Optional(
      t.String({
        minLength: 16,
        maxLength: 256,
        description:
          "Signing secret to use instead of a generated one. `whsec_<base64 of 24-64 bytes>` keys webhook-signature with the decoded bytes (Standard Webhooks); any other string keys both signatures with its own bytes.",
      }),
    ),
    description: t.Optional(Description),
    active: t.Optional(t.Boolean({ description: "default true" })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        url: "https://example.com/hooks/nms",
        events: ["notification.delivered", "notification.failed"],
        description: "Delivery receipts for the CRM",
      },
    ],
  },
);

export const UpdateWebhookBody = t.Object(
  {
    url: t.Optional(Url),
    events: t.Optional(Events),
    active: t.Optional(t.Boolean({ description: "false stops deliveries, scheduled retries included; true resumes and clears disabled_reason" })),
    description: t.Optional(Description),
  },
  { minProperties: 1, additionalProperties: false, examples: [{ active: false }, { events: ["notification.failed"], url: "https://example.com/hooks/v2" }] },
);

export const TestWebhookBody = t.Object(
  {
    event: t.Optional(t.Union(WebhookEventTypeLiteral.anyOf, { description: "Event type whose data shape the test payload carries (default: none)" })),
    override_url: t.Optional(t.String({ maxLength: MAX_URL_LENGTH, description: "Send this one test to another URL (same rules as url)" })),
  },
  { additionalProperties: false, examples: [{}, { event: "notification.delivered" }, { override_url: "https://staging.example.com/hooks/nms" }] },
);

export const ReplayWebhookBody = t.Object(
  {
    since: t.String({ format: "date-time", description: "Start of the window (ISO 8601, inclusive)" }),
    until: t.Optional(t.String({ format: "date-time", description: "End of the window (exclusive); default now" })),
    events: t.Optional(t.Array(WebhookEventTypeLiteral, { minItems: 1, maxItems: EventTypeUnion.anyOf.length, description: "Only these types (default: the webhook's)" })),
  },
  { additionalProperties: false, examples: [{ since: "2026-01-01T00:00:00.000Z" }, { since: "2026-01-01T00:00:00.000Z", until: "2026-01-02T00:00:00.000Z", events: ["notification.failed"] }] },
);

export const WebhookParams = t.Object({ id: t.String() });
export const DeliveryParams = t.Object({ id: t.String(), delivery_id: t.String() });

export const DeliveryStatusLiteral = t.Union([t.Literal("success"), t.Literal("failed"), t.Literal("pending")]);

export const ListDeliveriesQuery = t.Object({
  limit: t.Optional(t.String({ description: "1-100, default 20" })),
  cursor: t.Optional(t.String({ description: "meta.cursor of the previous page" })),
  status: t.Optional(DeliveryStatusLiteral),
  event_id: t.Optional(t.String({ description: "Only the attempts of this event" })),
});

// ---------------------------------------------------------------------------------------------
// Records

export const Webhook = t.Object({
  id: t.String(),
  url: t.String(),
  events: t.Array(t.String()),
  active: t.Boolean(),
  description: Nullable(t.String()),
  disabled_reason: Nullable(t.String({ description: "Why the service deactivated it (every delivery failed for the auto-disable window)" })),
  disabled_at: Nullable(t.String()),
  created_at: t.String(),
  updated_at: t.String(),
});

export const WebhookCreated = t.Composite([
  Webhook,
  t.Object({ signing_secret: t.String({ description: "Shown only in this response" }) }),
]);

export const WebhookDelivery = t.Object({
  id: t.String(),
  webhook_id: t.String(),
  event_id: t.String({ description: "The event's id: the body's `id` and the webhook-id header" }),
  event_type: t.String(),
  attempt: t.Integer({ description: "1 for the first attempt of this event to this webhook" }),
  status: DeliveryStatusLiteral,
  response_status: Nullable(t.Integer()),
  response_body: Nullable(t.String({ description: "First 1 KiB of the receiver's answer" })),
  duration_ms: Nullable(t.Integer()),
  error: Nullable(t.Object({ code: t.String(), message: t.String() })),
  next_retry_at: Nullable(t.String({ description: "When the next automatic attempt is due (failed attempts that will be retried)" })),
  created_at: t.String(),
});

const PageMeta = t.Object({ cursor: Nullable(t.String()), has_more: t.Boolean() });

const WEBHOOK_EXAMPLE = {
  id: "0198c3f5-1111-7222-8333-444455556666",
  url: "https://hooks.example.com/nms",
  events: ["notification.delivered", "notification.failed"],
  active: true,
  description: "Order updates",
  disabled_reason: null,
  disabled_at: null,
  created_at: "2025-08-01T12:00:00.000Z",
  updated_at: "2025-08-01T12:00:00.000Z",
};
const DELIVERY_EXAMPLE = {
  id: "0198c3f6-1111-7222-8333-444455556666",
  webhook_id: WEBHOOK_EXAMPLE.id,
  event_id: "0198c3d5-1111-7222-8333-444455556666",
  event_type: "notification.delivered",
  attempt: 1,
  status: "success",
  response_status: 200,
  response_body: "ok",
  duration_ms: 84,
  error: null,
  next_retry_at: null,
  created_at: "2025-08-01T12:00:03.000Z",
};

export const WebhookResponse = t.Object({ data: Webhook }, { examples: [{ data: WEBHOOK_EXAMPLE }] });
export const WebhookCreatedResponse = t.Object(
  { data: WebhookCreated },
  { examples: [{ data: { ...WEBHOOK_EXAMPLE, signing_secret: "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD0UQWCGuA5kE=" } }] },
);
export const WebhookListResponse = t.Object({ data: t.Array(Webhook) }, { examples: [{ data: [WEBHOOK_EXAMPLE] }] });
export const DeliveryResponse = t.Object(
  { data: WebhookDelivery },
  { examples: [{ data: { ...DELIVERY_EXAMPLE, id: "0198c3f7-1111-7222-8333-444455556666", attempt: 2, status: "pending", response_status: null, response_body: null, duration_ms: null } }] },
);
export const DeliveryListResponse = t.Object(
  { data: t.Array(WebhookDelivery), meta: PageMeta },
  { examples: [{ data: [DELIVERY_EXAMPLE], meta: { cursor: null, has_more: false } }] },
);

export const TestResult = t.Object({
  success: t.Boolean({ description: "The receiver answered 2xx" }),
  status_code: Nullable(t.Integer({ description: "The receiver's HTTP status (null: no answer)" })),
  duration_ms: t.Integer(),
  delivery_id: t.String(),
  error: Nullable(t.Object({ code: t.String(), message: t.String() })),
});
export const TestResultResponse = t.Object({ data: TestResult });

export const ReplayResult = t.Object({
  queued: t.Integer({ description: "Events queued for one more attempt each" }),
  truncated: t.Boolean({ description: "true when the window held more than one call queues (10,000): call again with a later since" }),
  last_event_at: Nullable(t.String({ description: "created_at of the last event queued (the next since when truncated)" })),
});
export const ReplayResultResponse = t.Object({ data: ReplayResult });

export type WebhookRecord = Static<typeof Webhook>;
export type WebhookDeliveryRecord = Static<typeof WebhookDelivery>;
