// TypeBox schemas of GET/PUT /v1/settings/delivery (issue 22): the delivery policy across workflows.
// Field rules (IANA zone, HH:MM, channels, windows) are checked in domain/delivery-policy/settings.ts.
import { t } from "elysia";

const Field = (type: string, description: string) => t.Optional(t.Unknown({ description: `${type}. ${description}` }));

const EXAMPLE = {
  timezone: "America/Sao_Paulo",
  quiet_hours: { start: "22:00", end: "08:00", channels: ["sms", "push", "whatsapp"] },
  frequency_caps: [{ channel: "push", limit: 3, window: "1h" }],
};

export const DeliverySettingsBody = t.Object(
  {
    timezone: Field("string", "IANA time zone used when a subscriber has none; default UTC."),
    quiet_hours: Field(
      "object or null",
      "`{start:\"HH:MM\", end:\"HH:MM\", channels:[...]}`: a send on these channels inside the window (the subscriber's local time) is held (status scheduled) until it ends; start > end spans midnight.",
    ),
    frequency_caps: Field("array", "`[{channel, limit, window}]`, window `<N>s|m|h|d` up to 30d: more sends than `limit` to one subscriber on the channel within the rolling window end suppressed (frequency_capped)."),
  },
  { additionalProperties: t.Unknown(), examples: [EXAMPLE] },
);

export const DeliverySettingsRecord = t.Object({
  timezone: t.String(),
  quiet_hours: t.Union([t.Object({ start: t.String(), end: t.String(), channels: t.Array(t.String()) }), t.Null()]),
  frequency_caps: t.Array(t.Object({ channel: t.String(), limit: t.Integer(), window: t.String() })),
  updated_at: t.Union([t.String(), t.Null()], { description: "null while the defaults apply" }),
});

export const DeliverySettingsResponse = t.Object(
  { data: DeliverySettingsRecord },
  { examples: [{ data: { ...EXAMPLE, updated_at: "2026-11-26T12:00:00.000Z" } }] },
);
