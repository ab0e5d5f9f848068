// The channel list (once, for every layer) and the TypeBox schemas of the channels API (SPEC "Channel
// configuration", DESIGN.md 6). The response schema has no credentials field, so Elysia's normalizer could not emit one.
import { t, type Static } from "elysia";

/** The delivery channels in SPEC order, as a schema: validates to "must be one of email, whatsapp, ...". */
export const ChannelLiteral = t.Union([t.Literal("email"), t.Literal("whatsapp"), t.Literal("sms"), t.Literal("in_app"), t.Literal("push")]);
export type Channel = Static<typeof ChannelLiteral>;
/** The same list as values: the one channel list every layer uses. */
export const CHANNELS: readonly Channel[] = ChannelLiteral.anyOf.map((literal) => literal.const);
/** "email, whatsapp, sms, in_app or push", for schema descriptions */
export const CHANNELS_TEXT = `${CHANNELS.slice(0, -1).join(", ")} or ${CHANNELS[CHANNELS.length - 1]}`;

const Obj = t.Record(t.String(), t.Unknown());

/** Most backup providers a channel may have (docs/routing.md). */
export const MAX_FAILOVER = 3;

/** A backup provider, tried in order when the ones before it fail or their circuit is open. */
export const FailoverEntryBody = t.Object({
  provider: t.String({ description: "A provider serving this channel (the same vendor again is fine: say a second Twilio account)" }),
  credentials: t.Optional(Obj),
  settings: t.Optional(Obj),
});

const FailoverList = t.Array(FailoverEntryBody, {
  maxItems: MAX_FAILOVER,
  description:
    "0-3 backup providers, tried in order after the primary. Credentials are encrypted and never returned. On PUT the list replaces the " +
    "stored one; an entry sent without credentials keeps those of the stored entry at the same position when its provider is the same.",
});

export const ChannelCreateBody = t.Object(
  {
    channel: t.String({ enum: [...CHANNELS], description: CHANNELS_TEXT }),
    provider: t.String({ description: "smtp, sendgrid, twilio, whatsapp_cloud, fcm, webpush, inbox or sandbox" }),
    credentials: t.Optional(Obj),
    settings: t.Optional(Obj),
    active: t.Optional(t.Boolean()),
    failover: t.Optional(FailoverList),
  },
  {
    examples: [
      {
        channel: "email",
        provider: "sendgrid",
        credentials: { api_key: "SG.xxxxxxxxxxxxxxxxxxxxxx.yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy" },
        settings: { from_email: "hello@acme.example", from_name: "Acme" },
      },
    ],
  },
);

/** PUT: the create fields (channel, when given, must match the path) plus `active`. */
export const ChannelUpdateBody = t.Object(
  {
    channel: t.Optional(t.String()),
    provider: t.Optional(t.String()),
    credentials: t.Optional(Obj),
    settings: t.Optional(Obj),
    active: t.Optional(t.Boolean()),
    failover: t.Optional(FailoverList),
  },
  { examples: [{ settings: { from_email: "hello@acme.example", from_name: "Acme Support" }, active: true }] },
);

export const ChannelTestBody = t.Object(
  { to: t.Optional(t.String({ description: "Recipient of the test notification; default settings.test_recipient" })) },
  { examples: [{ to: "ana@example.com" }] },
);

export const ChannelParams = t.Object({ channel: t.String() });

export const CircuitStateLiteral = t.Union([t.Literal("closed"), t.Literal("open"), t.Literal("half_open")]);

/** One configured provider of a channel with its circuit breaker (GET /v1/channels/:channel). */
export const ChannelProviderState = t.Object({
  provider: t.String(),
  role: t.Union([t.Literal("primary"), t.Literal("failover")]),
  circuit: CircuitStateLiteral,
  opened_at: t.Union([t.String(), t.Null()], { description: "when the circuit last opened (null while closed)" }),
  failures: t.Integer({ description: "failures in a row since the last answered call" }),
  last_error: t.Union([t.String(), t.Null()], { description: "the provider's last failing answer (code: message)" }),
});

export const ChannelConfigRecord = t.Object({
  id: t.String(),
  channel: t.String(),
  provider: t.String(),
  settings: Obj,
  active: t.Boolean(),
  credential_keys: t.Array(t.String(), { description: "Names of the stored credentials; values are never returned" }),
  failover: t.Array(t.Object({ provider: t.String(), settings: Obj, credential_keys: t.Array(t.String()) }), {
    description: "The backup providers in order (credentials never; their key names only)",
  }),
  providers: t.Optional(
    t.Array(ChannelProviderState, { description: "GET /v1/channels/:channel: the primary and each backup with its circuit breaker's state" }),
  ),
  created_at: t.String(),
  updated_at: t.String(),
});

const CHANNEL_EXAMPLE = {
  id: "0198c3f0-1111-7222-8333-444455556666",
  channel: "email",
  provider: "sendgrid",
  settings: { from_email: "hello@acme.example", from_name: "Acme" },
  active: true,
  credential_keys: ["api_key"],
  failover: [],
  created_at: "2025-08-01T12:00:00.000Z",
  updated_at: "2025-08-01T12:00:00.000Z",
};

export const ChannelResponse = t.Object({ data: ChannelConfigRecord }, { examples: [{ data: CHANNEL_EXAMPLE }] });
export const ChannelListResponse = t.Object({ data: t.Array(ChannelConfigRecord) }, { examples: [{ data: [CHANNEL_EXAMPLE] }] });
export const ChannelTestResponse = t.Object(
  {
    data: t.Object({
      success: t.Boolean({ description: "what was checked worked: the provider was reached (and accepted the credentials), or accepted the test message" }),
      message: t.String({ description: "what happened, in the provider's words when it answered" }),
      checked: t.Optional(
        t.Union([t.Literal("connection"), t.Literal("delivery"), t.Literal("configuration")], {
          description: "connection: reached and authenticated without sending (SMTP); delivery: a test was sent; configuration: only the fields were checked",
        }),
      ),
      notification_id: t.Optional(t.String({ description: "the test notification (delivery)" })),
      provider_response: t.Optional(t.Record(t.String(), t.Unknown(), { description: "the provider's answer as recorded (credentials redacted)" })),
      providers: t.Optional(
        t.Array(
          t.Object({
            provider: t.String(),
            role: t.Union([t.Literal("primary"), t.Literal("failover")]),
            success: t.Boolean(),
            message: t.String(),
            checked: t.Optional(t.Union([t.Literal("connection"), t.Literal("delivery"), t.Literal("configuration")])),
            notification_id: t.Optional(t.String()),
            provider_response: t.Optional(t.Record(t.String(), t.Unknown())),
          }),
          {
            description:
              "With backup providers: each provider's own result, the primary first (a backup's test with a recipient goes straight through its adapter); success is then true only when every provider passed",
          },
        ),
      ),
    }),
  },
  {
    examples: [
      {
        data: {
          success: false,
          checked: "connection",
          message: "smtp could not be used: connect ECONNREFUSED 127.0.0.1:2525 (connection_error)",
          provider_response: { host: "127.0.0.1", port: 2525, error_code: "ECONNREFUSED" },
        },
      },
      {
        data: {
          success: true,
          checked: "delivery",
          message: "Sent to ana@example.com through sendgrid; it accepted the message",
          notification_id: "0198c3b3-0a1b-7c2d-9e3f-4a5b6c7d8e9f",
          provider_response: { status: 202, message_id: "kL9x2QeTRh6bWv1pZ0aA3g" },
        },
      },
    ],
  },
);
