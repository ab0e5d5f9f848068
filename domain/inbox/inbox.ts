// The in-app inbox: delivering an item (idempotent per notification), read / read-all, the
// inbox.* events, and live fan-out to stream listeners in every API process via Redis pub/sub.
//
// Redis: channel redisKeys.inboxEvents (store/redis-keys.ts), message = one event {id, type,
// created_at, data} as JSON. Each process subscribes (store/pubsub.ts: sharded on a cluster) to a
// channel while at least one local listener wants it, fanning out in-process.
import { sql, type Scope } from "../../store/db";
import { pubsub } from "../../store/pubsub";
import { redisKeys } from "../../store/redis-keys";
import { emitEvent, type EventRecord } from "../events/outbox";
import { findSubscriber, type SubscriberRow } from "../../store/subscribers";
import {
  insertInboxItem,
  markAllInboxItemsRead,
  markInboxItemRead,
  type InboxItemRow,
} from "../../store/inbox";
import { serializeInboxItem, type InboxItem } from "./item";
import { AppError } from "../../basics/errors";
import { logger } from "../../basics/log";

export const INBOX_EVENT_TYPES = ["inbox.notification.received", "inbox.notification.read"] as const;

export class SubscriberNotFoundError extends AppError {
  constructor(message = "Subscriber not found") {
    super("subscriber_not_found", message);
  }
}

function eventData(sub: SubscriberRow, item: InboxItemRow) {
  return { subscriber_id: sub.id, external_id: sub.external_id, item: serializeInboxItem(item) };
}

/**
 * Stores an in-app notification for a subscriber (id or external_id, not deleted; otherwise
 * throws code `subscriber_not_found`). Idempotent per notificationId: a second call returns
 * the existing item and emits nothing. Emits `inbox.notification.received` in the same
 * transaction, then publishes it to live streams.
 */
export async function deliverToInbox(input: {
  tenantId: string;
  environment: string;
  recipient: string;
  notificationId: string | null;
  title?: string | null;
  body?: string | null;
  data?: Record<string, unknown> | null;
}): Promise<{ itemId: string; created: boolean; item: InboxItem }> {
  const scope = { tenantId: input.tenantId, environment: input.environment };
  const result = await sql.begin(async (tx) => {
    const sub = await findSubscriber(scope, input.recipient, tx);
    if (!sub) throw new SubscriberNotFoundError(`No subscriber ${JSON.stringify(input.recipient)} in this environment`);
    const { row, created } = await insertInboxItem(tx, scope, {
      subscriberId: sub.id,
      notificationId: input.notificationId,
      title: input.title ?? null,
      body: input.body ?? null,
      data: input.data ?? {},
    });
    const event = created
      ? await emitEvent(tx, { ...scope, type: "inbox.notification.received", data: eventData(sub, row) })
      : null;
    return { sub, row, created, event };
  });
  if (result.event) await publishInboxEvents(scope, result.sub.id, [result.event]);
  return { itemId: result.row.id, created: result.created, item: serializeInboxItem(result.row) };
}

/** Marks one item read (item id or notification id); emits `inbox.notification.read` once. */
export async function readInboxItem(scope: Scope, sub: SubscriberRow, itemOrNotificationId: string): Promise<InboxItem> {
  const result = await sql.begin(async (tx) => {
    const marked = await markInboxItemRead(tx, scope, sub.id, itemOrNotificationId);
    if (!marked) throw new AppError("notification_not_found", "In-app notification not found");
    const event = marked.changed
      ? await emitEvent(tx, { ...scope, type: "inbox.notification.read", data: eventData(sub, marked.row) })
      : null;
    return { row: marked.row, event };
  });
  if (result.event) await publishInboxEvents(scope, sub.id, [result.event]);
  return serializeInboxItem(result.row);
}

/** Marks every unread item read; one `inbox.notification.read` event per item changed. */
export async function readAllInboxItems(scope: Scope, sub: SubscriberRow): Promise<number> {
  const events = await sql.begin(async (tx) => {
    const rows = await markAllInboxItemsRead(tx, scope, sub.id);
    const out: EventRecord[] = [];
    for (const row of rows) {
      out.push(await emitEvent(tx, { ...scope, type: "inbox.notification.read", data: eventData(sub, row) }));
    }
    return out;
  });
  await publishInboxEvents(scope, sub.id, events);
  return events.length;
}

// ---------------------------------------------------------------------------------------------
// Live fan-out.

export type InboxListener = (event: EventRecord) => void;

function channelFor(scope: Scope, subscriberId: string): string {
  return redisKeys.inboxEvents(scope.tenantId, scope.environment, subscriberId);
}

/** Publishes committed events; a Redis outage loses only the live push (replay covers it). */
export async function publishInboxEvents(scope: Scope, subscriberId: string, events: EventRecord[]): Promise<void> {
  if (events.length === 0) return;
  const channel = channelFor(scope, subscriberId);
  try {
    await pubsub.publish(channel, events.map((e) => JSON.stringify({ id: e.id, type: e.type, created_at: e.created_at, data: e.data })));
  } catch (err) {
    logger.warn({ err, channel }, "inbox publish failed");
  }
}

const listeners = new Map<string, Set<InboxListener>>();

/** Hands one published event to every local listener of its channel. */
function fanOut(channel: string, message: string) {
  const set = listeners.get(channel);
  if (!set) return;
  let event: EventRecord;
  try {
    event = JSON.parse(message);
  } catch {
    return;
  }
  for (const fn of set) {
    try {
      fn(event);
    } catch {
      /* one listener never breaks another */
    }
  }
}

/**
 * Registers a listener for one subscriber's inbox events from any process. Resolves once the
 * Redis SUBSCRIBE is confirmed, so nothing published afterwards is missed. Returns the
 * function that removes it.
 */
export async function subscribeInbox(scope: Scope, subscriberId: string, fn: InboxListener): Promise<() => void> {
  const channel = channelFor(scope, subscriberId);
  let set = listeners.get(channel);
  if (!set) {
    set = new Set();
    listeners.set(channel, set);
  }
  set.add(fn);
  // ioredis sends commands in order, so a SUBSCRIBE after a pending UNSUBSCRIBE wins
  await pubsub.subscribe(channel, (message) => fanOut(channel, message));
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    const current = listeners.get(channel);
    if (!current) return;
    current.delete(fn);
    if (current.size === 0) {
      listeners.delete(channel);
      pubsub.unsubscribe(channel).catch(() => {});
    }
  };
}

/** Number of local stream listeners, all or one subscriber's (for tests and metrics). */
export function inboxListenerCount(subscriberId?: string): number {
  let n = 0;
  for (const [channel, set] of listeners) if (!subscriberId || channel.endsWith(`:${subscriberId}`)) n += set.size;
  return n;
}

/**
 * This subscriber's inbox.* events after `lastEventId` (Last-Event-ID resume), oldest first.
 * An unknown id yields nothing: the client reloads its list instead.
 */
export async function inboxEventsSince(
  scope: Scope,
  subscriberId: string,
  lastEventId: string,
  limit = 1000,
): Promise<EventRecord[]> {
  if (!/^[0-9a-f-]{36}$/i.test(lastEventId)) return [];
  const rows = await sql<{ id: string; type: string; created_at: Date; data: Record<string, unknown> }[]>`
    with last as (
      select created_at, id from events
      where id = ${lastEventId} and tenant_id = ${scope.tenantId} and environment = ${scope.environment}
    )
    select e.id, e.type, e.created_at, e.data from events e, last
    where e.tenant_id = ${scope.tenantId} and e.environment = ${scope.environment}
      and e.type in ${sql(INBOX_EVENT_TYPES as unknown as string[])}
      and e.data ->> 'subscriber_id' = ${subscriberId}
      and (e.created_at, e.id) > (last.created_at, last.id)
    order by e.created_at, e.id
    limit ${limit}`;
  return rows.map((r) => ({ id: r.id, type: r.type, created_at: r.created_at.toISOString(), data: r.data }));
}
