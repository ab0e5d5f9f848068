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

export const InboxListResponse = t.Object({
  data: t.Array(InboxItem),
  meta: t.Object({ total: t.Integer(), limit: t.Integer(), offset: t.Integer(), unread_count: t.Integer() }),
});
export type InboxItemRecord = Static<typeof InboxItem>;
export type InboxListRecord = Static<typeof InboxListResponse>;
export const InboxItemResponse = t.Object({ data: InboxItem });
export const ReadAllResponse = t.Object({ data: t.Object({ updated: t.Integer() }) });
export const UnreadCountResponse = t.Object({ data: t.Object({ count: t.Integer() }) });

export const Preference = t.Object({
  category: t.String({ minLength: 1, maxLength: 100, description: 'A notification category, or "all"' }),
  channel: ChannelLiteral,
  enabled: t.Boolean(),
});
export type PreferenceRecord = Static<typeof Preference>;
export const PreferencesBody = t.Object({ preferences: t.Array(Preference, { maxItems: 500 }) });
export const PreferencesResponse = t.Object({ data: t.Array(Preference) });
