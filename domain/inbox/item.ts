// The in-app item as the API answers it and as inbox.* events carry it (DESIGN.md 6), from its row.
import type { InboxItemRow } from "../../store/inbox";
import { iso } from "../../store/time";

/** DESIGN.md 6: id, notification_id, title, body, data, read, read_at, created_at. */
export function serializeInboxItem(r: InboxItemRow) {
  return {
    id: r.id,
    notification_id: r.notification_id,
    title: r.title,
    body: r.body,
    data: r.data ?? {},
    read: r.read_at !== null,
    read_at: iso(r.read_at),
    created_at: iso(r.created_at)!,
  };
}
export type InboxItem = ReturnType<typeof serializeInboxItem>;
