// TypeBox schemas of the subscriber-scoped inbox routes: in-app items (DESIGN.md 6), their list,
// read / read-all / unread-count answers, and preferences.
import { t, type Static } from "elysia";
import { ChannelLiteral } from "./channels";

export const InboxParams = t.Object({ id: t.String({ description: "Subscriber id or external_id" }) });
export const InboxItemParams = t.Object({
  id: t.String({ description: "Subscriber id or external_id" }),
  notif_id: t.String({ description: "In-app item id or notification id" }),
});

export const InboxListQuery = t.Object({
  limit: t.Optional(t.String({ description: "1-100, default 20" })),
  offset: t.Optional(t.String({ description: ">= 0, default 0" })),
  unread_only: t.Optional(t.String({ description: "true to list unread items only" })),
});

export const InboxItem = t.Object({
  id: t.String(),
  notification_id: t.Union([t.String(), t.Null()]),
  title: t.Union([t.String(), t.Null()]),
  body: t.Union([t.String(), t.Null()]),
  data: t.Record(t.String(), t.Unknown()),
  read: t.Boolean(),
  read_at: t.Union([t.String(), t.Null()]),
  created_at: t.String(),
});

const INBOX_ITEM_EXAMPLE = {
  id: "0198c3b4-1a2b-7c3d-8e4f-5a6b7c8d9e0f",
  notification_id: "0198c3b3-0a1b-7c2d-9e3f-4a5b6c7d8e9f",
  title: "Your order shipped",
  body: "Order #1042 is on its way.",
  data: { order_id: "1042" },
  read: false,
  read_at: null,
  created_at: "2025-08-01T12:00:00.000Z",
};

export const InboxListResponse = t.Object(
  {
    data: t.Array(InboxItem),
    meta: t.Object({ total: t.Integer(), limit: t.Integer(), offset: t.Integer(), unread_count: t.Integer() }),
  },
  { examples: [{ data: [INBOX_ITEM_EXAMPLE], meta: { total: 1, limit: 20, offset: 0, unread_count: 1 } }] },
);
export type InboxItemRecord = Static<typeof InboxItem>;
export type InboxListRecord = Static<typeof InboxListResponse>;
export const InboxItemResponse = t.Object(
  { data: InboxItem },
  { examples: [{ data: { ...INBOX_ITEM_EXAMPLE, read: true, read_at: "2025-08-01T12:05:00.000Z" } }] },
);
export const ReadAllResponse = t.Object({ data: t.Object({ updated: t.Integer() }) }, { examples: [{ data: { updated: 3 } }] });
export const UnreadCountResponse = t.Object({ data: t.Object({ count: t.Integer() }) }, { examples: [{ data: { count: 2 } }] });

/** GET .../notifications/stream: Server-Sent Events, documented as text. */
export const InboxStream = t.String({
  contentMediaType: "text/event-stream",
  description: "One frame per event: id, event (type) and data (JSON {id, type, created_at, data}); a comment line every 15 s",
  examples: [
    'retry: 3000\n: connected\n\nid: 0198c3b5-2b3c-7d4e-8f5a-6b7c8d9e0f1a\nevent: inbox.notification.received\ndata: {"id":"0198c3b5-2b3c-7d4e-8f5a-6b7c8d9e0f1a","type":"inbox.notification.received","created_at":"2025-08-01T12:00:00.000Z","data":{}}\n\n',
  ],
});

export const Preference = t.Object({
  category: t.String({ minLength: 1, maxLength: 100, description: 'A notification category, or "all"' }),
  channel: ChannelLiteral,
  enabled: t.Boolean(),
});
export type PreferenceRecord = Static<typeof Preference>;
const PREFERENCES_EXAMPLE = [
  { category: "marketing", channel: "email", enabled: false },
  { category: "all", channel: "sms", enabled: false },
];
export const PreferencesBody = t.Object(
  { preferences: t.Array(Preference, { maxItems: 500 }) },
  { examples: [{ preferences: PREFERENCES_EXAMPLE }] },
);
export const PreferencesResponse = t.Object({ data: t.Array(Preference) }, { examples: [{ data: PREFERENCES_EXAMPLE }] });

/** A category with the subscriber's effective switch per channel (docs/preferences.md). */
export const CategoryState = t.Object({
  key: t.String({ description: 'A preference category\'s key, or "other" for choices under keys the tenant does not define' }),
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
  required: t.Boolean({ description: "Cannot be turned off: always sent" }),
  channels: t.Array(
    t.Object({
      channel: t.String(),
      enabled: t.Boolean(),
      locked: t.Boolean({ description: "true for a required category" }),
      source: t.String({ description: "required, subscriber (their own choice) or default (the category's default)" }),
    }),
  ),
});
export type CategoryStateRecord = Static<typeof CategoryState>;
export const EffectivePreferencesResponse = t.Object(
  { data: t.Array(CategoryState) },
  {
    examples: [
      {
        data: [
          {
            key: "offers",
            name: "Offers",
            description: null,
            required: false,
            channels: [{ channel: "email", enabled: true, locked: false, source: "default" }],
          },
        ],
      },
    ],
  },
);
