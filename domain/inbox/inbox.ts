// The in-app inbox: delivering an item (idempotent per notification), read / read-all, the
// inbox.* events, and live fan-out to stream listeners in every API process via Redis pub/sub.
//
// Redis: channel redisKeys.inboxEvents (store/redis-keys.ts), message = one event {id, type,
// created_at, data} as JSON. Each process subscribes (store/pubsub.ts: sharded on a cluster) to a
// channel while at least one local listener wants it, fanning out in-process.
import { sql, type Scope } from "../../store/db";
import { pubsub } from "../../store/pubsub";
import { redisKeys } from "../../store/redis-keys";
import { emitEvent, emitEvents, type EventRecord } from "../events/outbox";
import { findSubscribersBatch, type SubscriberRow } from "../../store/subscribers";
import { MicroBatcher } from "../../store/micro-batcher";
import {
  insertInboxItems,
  markAllInboxItemsRead,
  markInboxItemRead,
  type InboxItemRow,
} from "../../store/inbox";
import { serializeInboxItem, type InboxItem } from "./item";
import { AppError } from "../../basics/errors";
import { logger } from "../../basics/log";
import { createdSince, ID_TIME_SKEW_MS, keyDays, v7Time } from "../../store/history-keys";

export const INBOX_EVENT_TYPES = ["inbox.notification.received", "inbox.notification.read"] as const;

export class SubscriberNotFoundError extends AppError {
  constructor(message = "Subscriber not found") {
    super("subscriber_not_found", message);
  }
}

function eventData(sub: SubscriberRow, item: InboxItemRow) {
  return { subscriber_id: sub.id, external_id: sub.external_id, item: serializeInboxItem(item) };
}

export interface InboxDelivery {
  tenantId: string;
  environment: string;
  recipient: string;
  notificationId: string | null;
  title?: string | null;
  body?: string | null;
  data?: Record<string, unknown> | null;
}

type Delivered = { itemId: string; created: boolean; item: InboxItem };

/**
 * Stores an in-app notification for a subscriber (id or external_id, not deleted; otherwise
 * throws code `subscriber_not_found`). Idempotent per notificationId: a second call returns
 * the existing item and emits nothing. Emits `inbox.notification.received` in the same
 * transaction, then publishes it to live streams. Concurrent deliveries (the sender's handlers)
 * share one transaction: the subscribers' look-up, the items and the events are a statement each
 * for the whole batch (it was a transaction of four statements per item).
 */
export async function deliverToInbox(input: InboxDelivery): Promise<Delivered> {
  const out = await inboxBatcher.submit(input);
  if (out instanceof Error) throw out;
  return out;
}

async function deliverBatch(inputs: InboxDelivery[]): Promise<(Delivered | Error)[]> {
  const scopeOf = (d: InboxDelivery): Scope => ({ tenantId: d.tenantId, environment: d.environment });
  const result = await sql.begin(async (tx) => {
    const subs = await findSubscribersBatch(tx, inputs.map((d) => ({ scope: scopeOf(d), ref: d.recipient })));
    const found = inputs.flatMap((d, i) => (subs[i] ? [i] : []));
    const rows = await insertInboxItems(
      tx,
      found.map((i) => {
        const d = inputs[i]!;
        return { scope: scopeOf(d), subscriberId: subs[i]!.id, notificationId: d.notificationId, title: d.title ?? null, body: d.body ?? null, data: d.data ?? {} };
      }),
    );
    const created = found.flatMap((i, k) => (rows[k]!.created ? [k] : []));
    const events = await emitEvents(
      tx,
      created.map((k) => ({ ...scopeOf(inputs[found[k]!]!), type: "inbox.notification.received", data: eventData(subs[found[k]!]!, rows[k]!.row) })),
    );
    return { subs, found, rows, created, events };
  });
  const { subs, found, rows, created, events } = result;
  await Promise.all(created.map((k, e) => publishInboxEvents(scopeOf(inputs[found[k]!]!), subs[found[k]!]!.id, [events[e]!])));
  const out: (Delivered | Error)[] = inputs.map(
    (d) => new SubscriberNotFoundError(`No subscriber ${JSON.stringify(d.recipient)} in this environment`),
  );
  found.forEach((i, k) => {
    const { row, created: isNew } = rows[k]!;
    out[i] = { itemId: row.id, created: isNew, item: serializeInboxItem(row) };
  });
  return out;
}

// a failed batch runs each delivery alone: one bad row fails only its own send
const inboxBatcher = new MicroBatcher(deliverBatch, { maxSize: 200, maxWaitMs: 1, maxConcurrent: 2, retryEachAlone: true, name: "inbox deliveries" });

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
 * The statement of inboxEventsSince (exported for scripts/explain-history-reads.ts). events is
 * partitioned by day on id (UUID v7): the last event's id bounds both reads. An event made after it
 * has created_at >= the last one's, and its id lies within ID_TIME_SKEW_MS of its created_at
 * (domain/events/outbox.ts makes both together), so twice the margin below the last id's moment.
 */
export function inboxEventsQuery(scope: Scope, subscriberId: string, lastEventId: string, limit: number) {
  return sql`
    with last as (
      select created_at, id from events
      where id = ${lastEventId} ${keyDays("id", [lastEventId])} and tenant_id = ${scope.tenantId} and environment = ${scope.environment}
    )
    select e.id, e.type, e.created_at, e.data from events e, last
    where e.tenant_id = ${scope.tenantId} and e.environment = ${scope.environment}
      ${createdSince("e.id", v7Time(lastEventId) - ID_TIME_SKEW_MS)}
      and e.type in ${sql(INBOX_EVENT_TYPES as unknown as string[])}
      and e.data ->> 'subscriber_id' = ${subscriberId}
      and (e.created_at, e.id) > (last.created_at, last.id)
    order by e.created_at, e.id
    limit ${limit}`;
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
  const rows = await sql<{ id: string; type: string; created_at: Date; data: Record<string, unknown> }[]>`${inboxEventsQuery(scope, subscriberId, lastEventId, limit)}`;
  return rows.map((r) => ({ id: r.id, type: r.type, created_at: r.created_at.toISOString(), data: r.data }));
}
