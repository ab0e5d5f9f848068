// In-app inbox repository: idempotent item insert (one item per notification), the paged
// list with unread counts, and read / read-all. Every query is scoped by tenant and environment.
import { sql, type Scope, type Tx } from "./db";
import { isUuid, newId } from "./ids";
import { iso } from "./time";

export interface InboxItemRow {
  id: string;
  tenant_id: string;
  environment: string;
  subscriber_id: string;
  notification_id: string | null;
  title: string | null;
  body: string | null;
  data: Record<string, unknown>;
  read_at: Date | null;
  created_at: Date;
}

/** Inserts the item unless one exists for the notification; `created` says which happened. */
export async function insertInboxItem(
  tx: Tx,
  scope: Scope,
  item: { subscriberId: string; notificationId: string | null; title: string | null; body: string | null; data: unknown },
): Promise<{ row: InboxItemRow; created: boolean }> {
  const [row] = await tx<InboxItemRow[]>`
    insert into inbox_items (id, tenant_id, environment, subscriber_id, notification_id, title, body, data)
    values (${newId()}, ${scope.tenantId}, ${scope.environment}, ${item.subscriberId}, ${item.notificationId},
            ${item.title}, ${item.body}, ${tx.json((item.data ?? {}) as any)})
    on conflict (notification_id) do nothing
    returning *`;
  if (row) return { row, created: true };
  const [existing] = await tx<InboxItemRow[]>`select * from inbox_items where notification_id = ${item.notificationId}`;
  return { row: existing!, created: false };
}

export async function listInboxItems(
  scope: Scope,
  subscriberId: string,
  opts: { limit: number; offset: number; unreadOnly: boolean },
): Promise<{ rows: InboxItemRow[]; total: number; unreadCount: number }> {
  const where = sql`where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and subscriber_id = ${subscriberId}`;
  const unread = opts.unreadOnly ? sql`and read_at is null` : sql``;
  const [[counts], rows] = await Promise.all([
    sql<{ total: number; unread: number }[]>`
      select count(*)::int as total, (count(*) filter (where read_at is null))::int as unread
      from inbox_items ${where}`,
    sql<InboxItemRow[]>`
      select * from inbox_items ${where} ${unread}
      order by created_at desc, id desc limit ${opts.limit} offset ${opts.offset}`,
  ]);
  return { rows, total: opts.unreadOnly ? counts!.unread : counts!.total, unreadCount: counts!.unread };
}

export async function unreadCount(scope: Scope, subscriberId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from inbox_items
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment}
      and subscriber_id = ${subscriberId} and read_at is null`;
  return row!.n;
}

/** Marks one item read (by item id or notification id); `changed` is false when it already was. */
export async function markInboxItemRead(
  tx: Tx,
  scope: Scope,
  subscriberId: string,
  itemOrNotificationId: string,
): Promise<{ row: InboxItemRow; changed: boolean } | undefined> {
  if (!isUuid(itemOrNotificationId)) return undefined;
  const [current] = await tx<InboxItemRow[]>`
    select * from inbox_items
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and subscriber_id = ${subscriberId}
      and (id = ${itemOrNotificationId} or notification_id = ${itemOrNotificationId})
    order by (id = ${itemOrNotificationId}) desc limit 1 for update`;
  if (!current) return undefined;
  if (current.read_at) return { row: current, changed: false };
  const [row] = await tx<InboxItemRow[]>`update inbox_items set read_at = now() where id = ${current.id} returning *`;
  return { row: row!, changed: true };
}

/** Marks every unread item of the subscriber read; returns the rows it changed. */
export async function markAllInboxItemsRead(tx: Tx, scope: Scope, subscriberId: string): Promise<InboxItemRow[]> {
  return tx<InboxItemRow[]>`
    update inbox_items set read_at = now()
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment}
      and subscriber_id = ${subscriberId} and read_at is null
    returning *`;
}
