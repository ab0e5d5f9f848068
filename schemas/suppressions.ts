// TypeBox schemas of /v1/suppressions: the tenant's list of addresses that hard-bounced, complained
// or are no longer registered (push), and its filters.
import { t } from "elysia";

export const SuppressionReasonName = t.Union([t.Literal("bounced"), t.Literal("complained"), t.Literal("unregistered")], {
  description: "bounced (hard bounce), complained (spam report), unregistered (FCM token or Web Push subscription gone)",
});

export const Suppression = t.Object({
  address: t.String({ description: "email address (lower-cased), FCM registration token, or Web Push endpoint URL" }),
  channel: t.String(),
  reason: SuppressionReasonName,
  notification_id: t.Union([t.String(), t.Null()], { description: "the notification whose outcome listed it" }),
  created_at: t.String(),
});

export const SuppressionListQuery = t.Object({
  limit: t.Optional(t.String({ description: "1-100, default 20" })),
  cursor: t.Optional(t.String({ description: "meta.cursor of the previous page" })),
  address: t.Optional(t.String({ description: "exact address (an email address case-insensitively)" })),
  reason: t.Optional(SuppressionReasonName),
  channel: t.Optional(t.String({ description: "email or push" })),
});

export const SuppressionList = t.Object(
  {
    data: t.Array(Suppression),
    meta: t.Object({ cursor: t.Union([t.String(), t.Null()]), has_more: t.Boolean() }),
  },
  {
    examples: [
      {
        data: [
          { address: "gone@example.com", channel: "email", reason: "bounced", notification_id: "0198c3b3-0a1b-7c2d-9e3f-4a5b6c7d8e9f", created_at: "2025-08-01T12:00:05.000Z" },
        ],
        meta: { cursor: null, has_more: false },
      },
    ],
  },
);

export const SuppressionAddressParams = t.Object({
  address: t.String({ description: "the listed address, URL-encoded (ana%40example.com; a push endpoint with its slashes encoded)" }),
});
