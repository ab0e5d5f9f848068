// TypeBox schemas of the notification routes (SPEC "Notifications", DESIGN.md 6): the create body
// with its aliases, list query, and the list, detail and attempt records.
import { t } from "elysia";
import { ChannelLiteral, CHANNELS_TEXT } from "./channels";

export const ChannelName = t.Union(ChannelLiteral.anyOf, { description: CHANNELS_TEXT });

const Obj = t.Record(t.String(), t.Any());

export const CreateNotificationBody = t.Object(
  {
    channel: ChannelName,
    to: t.Optional(t.String({ maxLength: 8192, description: "Recipient; alias of `recipient`" })),
    recipient: t.Optional(t.String({ maxLength: 8192 })),
    template: t.Optional(t.String({ minLength: 1, maxLength: 255, description: "Template slug; alias of `template_id`" })),
    template_id: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
    data: t.Optional(Obj),
    payload: t.Optional(Obj),
    metadata: t.Optional(Obj),
    category: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "Preference category checked before sending" })),
  },
  { additionalProperties: true },
);

export const ListNotificationsQuery = t.Object({
  limit: t.Optional(t.String()),
  cursor: t.Optional(t.String()),
  status: t.Optional(
    t.Union([
      t.Literal("pending"),
      t.Literal("sent"),
      t.Literal("delivered"),
      t.Literal("failed"),
      t.Literal("bounced"),
      t.Literal("suppressed"),
    ]),
  ),
  channel: t.Optional(ChannelName),
});

export const NotificationIdParams = t.Object({ id: t.String() });

const Nullable = <T extends import("@sinclair/typebox").TSchema>(s: T) => t.Union([s, t.Null()]);

export const AcceptedNotification = t.Object({
  id: t.String(),
  channel: t.String(),
  recipient: t.String(),
  status: t.String(),
  created_at: t.String(),
});

export const NotificationListItem = t.Object({
  id: t.String(),
  channel: t.String(),
  recipient: Nullable(t.String()),
  status: t.String(),
  template_id: Nullable(t.String()),
  created_at: Nullable(t.String()),
});

export const Attempt = t.Object({
  id: t.String(),
  attempt_number: t.Integer(),
  status: t.String({ description: "success or failure" }),
  provider: Nullable(t.String()),
  provider_response: t.Any(),
  error: t.Any(),
  duration_ms: Nullable(t.Integer()),
  created_at: Nullable(t.String()),
});

export const NotificationDetail = t.Object({
  id: t.String(),
  channel: t.String(),
  recipient: Nullable(t.String()),
  status: t.String(),
  template_id: Nullable(t.String()),
  subscriber_id: Nullable(t.String()),
  category: Nullable(t.String()),
  data: t.Any(),
  metadata: t.Any(),
  error: t.Any(),
  provider: Nullable(t.String()),
  suppressed_reason: Nullable(t.String()),
  warnings: t.Array(t.Object({ code: t.String(), message: t.String() }), {
    description: "Why the send was questionable though it went out, e.g. domain_unhealthy (the From domain's DKIM or SPF check was failing)",
  }),
  created_at: Nullable(t.String()),
  updated_at: Nullable(t.String()),
  sent_at: Nullable(t.String()),
  delivered_at: Nullable(t.String()),
  failed_at: Nullable(t.String()),
  bounced_at: Nullable(t.String()),
  opened_at: Nullable(t.String()),
  clicked_at: Nullable(t.String({ description: "first tracked click (docs/delivery-receipts.md)" })),
  complained_at: Nullable(t.String({ description: "when the recipient reported it as spam" })),
  attempts: t.Array(Attempt),
});

export const PageMeta = t.Object({ cursor: Nullable(t.String()), has_more: t.Boolean() });
