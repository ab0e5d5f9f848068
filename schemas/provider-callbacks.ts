// TypeBox schemas of the public provider callbacks: Twilio status callbacks, SendGrid's Event Webhook
// (both under /webhooks/<provider>/:channel_id) and WhatsApp Cloud's status webhook.
import { t } from "elysia";

export const CallbackChannelParams = t.Object({
  channel_id: t.String({ description: "Id of the channel configuration that sent the message (GET /v1/channels/:channel -> data.id)" }),
});

/** What Twilio POSTs (form-encoded) to a message's StatusCallback; other parameters are accepted and signed too. */
export const TwilioStatusCallbackBody = t.Object(
  {
    MessageSid: t.String({ description: "SM... / MM...: the provider message id stored on the notification" }),
    MessageStatus: t.String({ description: "queued, sending, sent, delivered, undelivered, failed, read, ..." }),
    AccountSid: t.Optional(t.String()),
    From: t.Optional(t.String()),
    To: t.Optional(t.String()),
    ErrorCode: t.Optional(t.String({ description: "set on undelivered and failed, e.g. 30003" })),
  },
  {
    additionalProperties: true,
    examples: [
      {
        MessageSid: "SM0123456789abcdef0123456789abcdef",
        MessageStatus: "undelivered",
        ErrorCode: "30003",
        AccountSid: "AC0123456789abcdef0123456789abcdef",
        From: "+14155550100",
        To: "+5511912345678",
        ApiVersion: "2010-04-01",
      },
    ],
  },
);

/** One SendGrid event; only the fields NMS reads are described (SendGrid sends more). */
export const SendgridEvent = t.Object(
  {
    event: t.String({ description: "processed, delivered, bounce, dropped, deferred, open, click, spamreport, unsubscribe, ..." }),
    sg_message_id: t.Optional(t.String({ description: "<X-Message-Id>.<suffix>: the part before the first dot names the message" })),
    sg_event_id: t.Optional(t.String()),
    timestamp: t.Optional(t.Number({ description: "Unix seconds" })),
    email: t.Optional(t.String()),
    reason: t.Optional(t.String()),
    type: t.Optional(t.String({ description: "bounce events: bounce (hard) or blocked" })),
    url: t.Optional(t.String()),
    ip: t.Optional(t.String()),
    useragent: t.Optional(t.String()),
  },
  { additionalProperties: true },
);

export const SendgridEventBatch = t.Array(SendgridEvent, {
  examples: [
    [
      {
        email: "ana@example.com",
        timestamp: 1764000000,
        event: "delivered",
        sg_event_id: "ZGVsaXZlcmVkLTAtMzQ5NjM5",
        sg_message_id: "W86EgYT6SQKk0lRflfLRsA.filter0425p1las1-16816-5A023E36-1.0",
        notification_id: "01936f3e-8b1e-7c4a-9f10-2b3c4d5e6f70",
        response: "250 OK",
      },
    ],
  ],
});

/** Mailgun's webhook body: the signature object and one event. */
export const MailgunWebhookBody = t.Object(
  {
    signature: t.Object(
      {
        timestamp: t.String({ description: "Unix seconds" }),
        token: t.String({ description: "50 random characters" }),
        signature: t.String({ description: "hex HMAC-SHA256 of timestamp + token under the webhook signing key" }),
      },
      { additionalProperties: true },
    ),
    "event-data": t.Object(
      {
        event: t.String({ description: "accepted, delivered, failed, rejected, opened, clicked, complained, unsubscribed, ..." }),
        id: t.Optional(t.String()),
        timestamp: t.Optional(t.Number({ description: "Unix seconds with a fraction" })),
        severity: t.Optional(t.String({ description: "failed events: permanent or temporary (temporary ones are ignored: Mailgun retries)" })),
        message: t.Optional(t.Object({ headers: t.Optional(t.Object({ "message-id": t.Optional(t.String()) }, { additionalProperties: true })) }, { additionalProperties: true })),
      },
      { additionalProperties: true },
    ),
  },
  {
    additionalProperties: true,
    examples: [
      {
        signature: {
          timestamp: "1764000000",
          token: "a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0",
          signature: "d2271d12299f6592d9d44cd9d250f0704e4674c30d79d07c47a66f95ce71cf55",
        },
        "event-data": {
          event: "delivered",
          id: "CPgfbmQMTCKtHW6uIWtuVe",
          timestamp: 1764000000.1234,
          recipient: "ana@example.com",
          message: { headers: { "message-id": "20261126111500.1.ABCDEF@mg.acme.com" } },
          "user-variables": { notification_id: "01936f3e-8b1e-7c4a-9f10-2b3c4d5e6f70" },
        },
      },
    ],
  },
);

/** A Postmark webhook: one record; only the fields NMS reads are described (Postmark sends more). */
export const PostmarkWebhookBody = t.Object(
  {
    RecordType: t.String({ description: "Delivery, Bounce, SpamComplaint, Open, Click, SubscriptionChange" }),
    MessageID: t.Optional(t.String({ description: "the provider message id stored on the notification" })),
    ID: t.Optional(t.Union([t.Number(), t.String()], { description: "bounces and complaints: the bounce id" })),
    Type: t.Optional(t.String({ description: "bounces: HardBounce, SoftBounce, Transient, BadEmailAddress, ..." })),
    Inactive: t.Optional(t.Boolean({ description: "bounces: Postmark deactivated the address" })),
  },
  {
    additionalProperties: true,
    examples: [
      {
        RecordType: "Delivery",
        ServerID: 23,
        MessageStream: "outbound",
        MessageID: "883953f4-6105-42a2-a16a-77a8eac79483",
        Recipient: "ana@example.com",
        DeliveredAt: "2026-11-26T11:15:00.000Z",
        Details: "smtp;250 2.0.0 OK",
        Metadata: { notification_id: "01936f3e-8b1e-7c4a-9f10-2b3c4d5e6f70" },
      },
    ],
  },
);

/** A Resend webhook event (Svix-signed); only the fields NMS reads are described. */
export const ResendWebhookBody = t.Object(
  {
    type: t.String({ description: "email.sent, email.delivered, email.bounced, email.complained, email.opened, email.clicked, email.failed, ..." }),
    created_at: t.Optional(t.String()),
    data: t.Object({ email_id: t.Optional(t.String({ description: "the provider message id stored on the notification" })) }, { additionalProperties: true }),
  },
  {
    additionalProperties: true,
    examples: [
      {
        type: "email.delivered",
        created_at: "2026-11-26T11:15:00.000Z",
        data: { email_id: "56761188-7520-42d8-8898-ff6fc54ce618", to: ["ana@example.com"], tags: { notification_id: "01936f3e-8b1e-7c4a-9f10-2b3c4d5e6f70" } },
      },
    ],
  },
);

/** A Vonage Messages API status webhook (signed with a JWT in Authorization). */
export const VonageStatusBody = t.Object(
  {
    message_uuid: t.String({ description: "the provider message id stored on the notification" }),
    status: t.String({ description: "submitted, delivered, rejected, undeliverable, read" }),
    timestamp: t.Optional(t.String()),
    to: t.Optional(t.String()),
    from: t.Optional(t.String()),
    client_ref: t.Optional(t.String({ description: "the notification id" })),
  },
  {
    additionalProperties: true,
    examples: [
      {
        message_uuid: "aaaaaaaa-bbbb-4ccc-8ddd-0123456789ab",
        to: "447700900000",
        from: "Acme",
        timestamp: "2026-11-26T11:15:00.000Z",
        status: "delivered",
        channel: "sms",
        client_ref: "01936f3e-8b1e-7c4a-9f10-2b3c4d5e6f70",
      },
    ],
  },
);

export const CallbackOutcomeBody = t.Object({
  data: t.Object({
    received: t.Integer({ description: "reports in the request" }),
    matched: t.Integer({ description: "reports that named a notification of this channel configuration" }),
    applied: t.Integer({ description: "reports that changed something (a replay or a late report changes nothing)" }),
    ignored: t.Integer({ description: "reports that say nothing about delivery or engagement" }),
  }),
});

/** Meta's webhook body: entry[].changes[].value {metadata.phone_number_id, statuses[]}. */
export const WhatsappWebhookBody = t.Object(
  {
    object: t.Optional(t.String()),
    entry: t.Optional(t.Array(t.Any(), { description: "entry[].changes[].value: {metadata: {phone_number_id}, statuses: [{id, status, timestamp, errors?}]}" })),
  },
  {
    additionalProperties: true,
    examples: [
      {
        object: "whatsapp_business_account",
        entry: [
          {
            id: "102290129340398",
            changes: [
              {
                field: "messages",
                value: {
                  messaging_product: "whatsapp",
                  metadata: { display_phone_number: "15550783881", phone_number_id: "106540352242922" },
                  statuses: [{ id: "wamid.HBgLMTU1NTA3ODM4ODEVAgARGBI", status: "delivered", timestamp: "1764000000", recipient_id: "5511912345678" }],
                },
              },
            ],
          },
        ],
      },
    ],
  },
);

export const WhatsappWebhookResponse = t.Object({ received: t.Boolean(), updated: t.Integer() });
