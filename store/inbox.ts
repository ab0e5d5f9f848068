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

/**
 * Inbox items in one statement (the caller's transaction), one per notification: each inserted unless
 * an item exists for its notification (then that one is answered, `created` false; of two items of
 * one notification in the batch, one is inserted). One answer per item, in order.
 */
export async function insertInboxItems(
  tx: Tx,
  items: { scope: Scope; subscriberId: string; notificationId: string | null; title: string | null; body: string | null; data: unknown }[],
): Promise<{ row: InboxItemRow; created: boolean }[]> {
  if (items.length === 0) return [];
  const ids = items.map(() => newId());
  const doc = JSON.stringify(
    items.map((it, i) => ({
      id: ids[i],
      tenant_id: it.scope.tenantId,
      environment: it.scope.environment,
      subscriber_id: it.subscriberId,
      notification_id: it.notificationId,
      title: it.title,
      body: it.body,
      data: it.data ?? {},
    })),
  );
  const inserted = await tx<InboxItemRow[]>`
    insert into inbox_items (id, tenant_id, environment, subscriber_id, notification_id, title, body, data)
    select id, tenant_id, environment, subscriber_id, notification_id, title, body, data
    from jsonb_to_recordset(${doc}::text::jsonb) as t(id uuid, tenant_id uuid, environment text, subscriber_id uuid, notification_id uuid, title text, body text, data jsonb)
    on conflict (notification_id) do nothing
    returning *`;
  const byId = new Map(inserted.map((r) => [r.id, r]));
  const missing = items.filter((_, i) => !byId.has(ids[i]!)).map((it) => it.notificationId!);
  const existing = missing.length ? await tx<InboxItemRow[]>`select * from inbox_items where notification_id = any(${missing}::uuid[])` : [];
  const byNotification = new Map(existing.map((r) => [r.notification_id, r]));
  return items.map((it, i) => {
    const row = byId.get(ids[i]!);
    return row ? { row, created: true } : { row: byNotification.get(it.notificationId)!, created: false };
  });
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
