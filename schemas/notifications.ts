// TypeBox schemas of the notification routes (SPEC "Notifications", DESIGN.md 6): the create body
// with its aliases, list query, and the list, detail and attempt records.
import { t } from "elysia";
import { ChannelLiteral, CHANNELS_TEXT } from "./channels";

export const ChannelName = t.Union(ChannelLiteral.anyOf, { description: CHANNELS_TEXT });

const Obj = t.Record(t.String(), t.Any());

/** The sender's lane (docs/routing.md): high never waits behind normal or low work. */
export const PriorityLiteral = t.Union([t.Literal("high"), t.Literal("normal"), t.Literal("low")], {
  description: "high (one-time codes, security alerts), normal (the default) or low (digests, marketing, broadcasts): high-priority messages never queue behind normal or low ones",
});

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
    critical: t.Optional(t.Boolean({ description: "An OTP or security alert: quiet hours and frequency caps of the delivery policy do not apply (docs/delivery-policy.md)" })),
    priority: t.Optional(PriorityLiteral),
    locale: t.Optional(
      t.String({
        maxLength: 35,
        description: "Locale to render the template in when the subscriber has none (pt_BR, pt, en, en-US); docs/localization.md",
      }),
    ),
  },
  {
    additionalProperties: true,
    examples: [
      { channel: "email", to: "ana@example.com", template: "welcome", data: { name: "Ana", company: "Acme" }, metadata: { order_id: "1042" } },
      { channel: "sms", to: "+5511912345678", data: { content: "Your code is 123456" } },
    ],
  },
);

export const ListNotificationsQuery = t.Object({
  limit: t.Optional(t.String()),
  cursor: t.Optional(t.String()),
  status: t.Optional(
    t.Union([
      t.Literal("pending"),
      t.Literal("scheduled"),
      t.Literal("sent"),
      t.Literal("delivered"),
      t.Literal("failed"),
      t.Literal("bounced"),
      t.Literal("suppressed"),
    ]),
  ),
  channel: t.Optional(ChannelName),
  recipient: t.Optional(
    t.String({ maxLength: 8192, description: "Exactly this address (email addresses compare case-insensitively, phones in E.164; in_app: the subscriber id or external_id the send named)" }),
  ),
  subscriber: t.Optional(
    t.String({ maxLength: 255, description: "A subscriber's external_id or id: every notification to that subscriber, on any channel (an unknown one gives an empty list)" }),
  ),
  template: t.Optional(t.String({ maxLength: 255, description: "Template slug" })),
  workflow: t.Optional(t.String({ maxLength: 100, description: "Workflow slug: the notifications its runs' steps created" })),
  created_after: t.Optional(t.String({ description: "ISO 8601 timestamp: created at or after it" })),
  created_before: t.Optional(t.String({ description: "ISO 8601 timestamp: created before it" })),
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

export const WorkflowStepRef = t.Object(
  { run_id: t.String(), step: t.Integer({ description: "zero-based index of the step in the run's workflow version" }) },
  { description: "The workflow run and step that created this notification; null for a notification sent directly" },
);

export const NotificationListItem = t.Object({
  id: t.String(),
  channel: t.String(),
  recipient: Nullable(t.String()),
  status: t.String({ description: "pending, scheduled (held by quiet hours), sent, delivered, failed, bounced, suppressed" }),
  template_id: Nullable(t.String()),
  subscriber_id: Nullable(t.String()),
  workflow_step: Nullable(WorkflowStepRef),
  scheduled_for: t.Optional(t.String({ description: "only on a notification quiet hours held: held (status scheduled) until this time, kept after its release" })),
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

export const SentContent = t.Object(
  {
    subject: t.Optional(t.String({ description: "email" })),
    title: t.Optional(t.String({ description: "push and in_app" })),
    body: t.Optional(t.String({ description: "the text: email's plain-text part, the SMS or WhatsApp message, the push or inbox body" })),
    html_body: t.Optional(t.String({ description: "email" })),
    provider_template_id: t.Optional(t.String({ description: "the provider's own template that was sent instead (SendGrid d-...)" })),
  },
  { description: "The rendered message as the last attempt sent it; null before any attempt and after erasure" },
);

export const NotificationDetail = t.Object({
  id: t.String(),
  channel: t.String(),
  recipient: Nullable(t.String()),
  status: t.String(),
  template_id: Nullable(t.String()),
  subscriber_id: Nullable(t.String()),
  category: Nullable(t.String()),
  priority: PriorityLiteral,
  locale: Nullable(t.String({ description: "The locale the template was rendered in (pt_BR, en_US...); null without a template" })),
  data: t.Any(),
  metadata: t.Any(),
  error: t.Any(),
  provider: Nullable(t.String()),
  suppressed_reason: Nullable(t.String({ description: "why a suppressed notification was not sent, e.g. frequency_capped (docs/delivery-policy.md)" })),
  critical: t.Optional(t.Boolean({ description: "quiet hours and frequency caps do not apply" })),
  scheduled_for: t.Optional(Nullable(t.String({ description: "held by quiet hours (status scheduled) until this time" }))),
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
  content: Nullable(SentContent),
  workflow_step: Nullable(WorkflowStepRef),
  attempts: t.Array(Attempt),
});

export const PageMeta = t.Object({ cursor: Nullable(t.String()), has_more: t.Boolean() });

const ID = "0198c3b3-0a1b-7c2d-9e3f-4a5b6c7d8e9f";
const CREATED = "2025-08-01T12:00:00.000Z";
const ATTEMPT_EXAMPLE = {
  id: "0198c3b3-1b2c-7d3e-8f4a-5b6c7d8e9f0a",
  attempt_number: 1,
  status: "success",
  provider: "sendgrid",
  provider_response: { status: 202, message_id: "kL9x2QeTRh6bWv1pZ0aA3g" },
  error: null,
  duration_ms: 184,
  created_at: "2025-08-01T12:00:01.000Z",
};

export const AcceptedNotificationResponse = t.Object(
  { data: AcceptedNotification },
  { examples: [{ data: { id: ID, channel: "email", recipient: "ana@example.com", status: "pending", created_at: CREATED } }] },
);
export const NotificationListResponse = t.Object(
  { data: t.Array(NotificationListItem), meta: PageMeta },
  {
    examples: [
      {
        data: [
          {
            id: ID,
            channel: "email",
            recipient: "ana@example.com",
            status: "delivered",
            template_id: "welcome",
            subscriber_id: "0198c3b2-6f1e-7c3a-9d2b-5e8f1a2b3c4d",
            workflow_step: { run_id: "0198c3b1-5e0d-7b29-8c1a-4d7e0f1a2b3c", step: 0 },
            created_at: CREATED,
          },
        ],
        meta: { cursor: "eyJ0IjoiMjAyNS0wOC0wMVQxMjowMDowMC4wMDBaIn0", has_more: true },
      },
    ],
  },
);
export const NotificationDetailResponse = t.Object(
  { data: NotificationDetail },
  {
    examples: [
      {
        data: {
          id: ID,
          channel: "email",
          recipient: "ana@example.com",
          status: "sent",
          template_id: "welcome",
          subscriber_id: "0198c3b2-6f1e-7c3a-9d2b-5e8f1a2b3c4d",
          category: null,
          priority: "normal",
          locale: "pt_BR",
          data: { name: "Ana", company: "Acme" },
          metadata: { order_id: "1042" },
          error: null,
          provider: "sendgrid",
          suppressed_reason: null,
          created_at: CREATED,
          updated_at: "2025-08-01T12:00:01.000Z",
          sent_at: "2025-08-01T12:00:01.000Z",
          delivered_at: null,
          failed_at: null,
          bounced_at: null,
          opened_at: null,
          clicked_at: null,
          complained_at: null,
          warnings: [],
          content: { subject: "Welcome, Ana", body: "Hi Ana, welcome to Acme!", html_body: "<p>Hi Ana, welcome to Acme!</p>" },
          workflow_step: null,
          attempts: [ATTEMPT_EXAMPLE],
        },
      },
    ],
  },
);
export const AttemptListResponse = t.Object({ data: t.Array(Attempt) }, { examples: [{ data: [ATTEMPT_EXAMPLE] }] });
