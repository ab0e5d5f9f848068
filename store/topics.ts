// Topics repository (migration 0710): topics per tenant and environment, their members, the count
// kept beside them, and the erasure rewrite (an erased subscriber leaves every topic).
import { sql, type Scope, type Tx } from "./db";
import { isUuid } from "./ids";
import type { SubscriberRow } from "./subscribers";

export interface TopicRow {
  id: string;
  tenant_id: string;
  environment: string;
  key: string;
  name: string;
  subscriber_count: number;
  created_at: Date;
}

/** Inserts a topic; null when the key is taken in this scope. */
export async function insertTopic(tx: Tx, scope: Scope, t: { id: string; key: string; name: string }): Promise<TopicRow | null> {
  const [row] = await tx<TopicRow[]>`
    insert into topics (id, tenant_id, environment, key, name)
    values (${t.id}, ${scope.tenantId}, ${scope.environment}, ${t.key}, ${t.name})
    on conflict (tenant_id, environment, key) do nothing
    returning *`;
  return row ?? null;
}

export async function findTopic(scope: Scope, key: string, tx: Tx = sql, opts: { forUpdate?: boolean } = {}): Promise<TopicRow | null> {
  const [row] = await tx<TopicRow[]>`
    select * from topics where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and key = ${key}
    ${opts.forUpdate ? tx`for update` : tx``}`;
  return row ?? null;
}

/** `limit + 1` topics newest first after the cursor's id (store/cursor.ts pageOf). */
export async function listTopics(scope: Scope, opts: { limit: number; afterId: string | null }): Promise<TopicRow[]> {
  return await sql<TopicRow[]>`
    select * from topics where tenant_id = ${scope.tenantId} and environment = ${scope.environment}
      ${opts.afterId ? sql`and id < ${opts.afterId}` : sql``}
    order by id desc limit ${opts.limit + 1}`;
}

export async function deleteTopic(scope: Scope, key: string): Promise<boolean> {
  const rows = await sql`delete from topics where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and key = ${key} returning id`;
  return rows.length > 0;
}

/**
 * Live subscribers named by external_id or id: the map from each given reference to its
 * subscriber id (a reference that names none is absent from the map).
 */
export async function resolveSubscriberRefs(tx: Tx, scope: Scope, refs: string[]): Promise<Map<string, string>> {
  const uuids = refs.filter(isUuid);
  // two index lookups (an OR of them can be planned as a walk over the tenant's subscribers)
  const rows = await tx<{ id: string; external_id: string }[]>`
    select id, external_id from subscribers
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and deleted_at is null and external_id = any(${refs}::text[])
    ${
      uuids.length
        ? tx`union select id, external_id from subscribers
            where id = any(${uuids}::uuid[]) and tenant_id = ${scope.tenantId} and environment = ${scope.environment} and deleted_at is null`
        : tx``
    }`;
  const byExternal = new Map(rows.map((r) => [r.external_id, r.id]));
  const ids = new Set(rows.map((r) => r.id));
  const out = new Map<string, string>();
  for (const ref of refs) {
    const id = byExternal.get(ref) ?? (ids.has(ref) ? ref : undefined);
    if (id) out.set(ref, id);
  }
  return out;
}

/** Adds members (the topic row locked by the caller); resolves to how many were new. */
export async function addMembers(tx: Tx, topicId: string, subscriberIds: string[]): Promise<number> {
  if (subscriberIds.length === 0) return 0;
  const rows = await tx`
    insert into topic_subscribers (topic_id, subscriber_id)
    select ${topicId}::uuid, s from unnest(${subscriberIds}::uuid[]) as s
    on conflict do nothing returning subscriber_id`;
  if (rows.length) await tx`update topics set subscriber_count = subscriber_count + ${rows.length} where id = ${topicId}`;
  return rows.length;
}

/** Removes members (the topic row locked by the caller); resolves to how many were members. */
export async function removeMembers(tx: Tx, topicId: string, subscriberIds: string[]): Promise<number> {
  if (subscriberIds.length === 0) return 0;
  const rows = await tx`
    delete from topic_subscribers where topic_id = ${topicId} and subscriber_id = any(${subscriberIds}::uuid[])
    returning subscriber_id`;
  if (rows.length) await tx`update topics set subscriber_count = subscriber_count - ${rows.length} where id = ${topicId}`;
  return rows.length;
}

/** `limit + 1` live members after the cursor's subscriber id, in subscriber id order descending. */
export async function listMembers(topicId: string, opts: { limit: number; afterId: string | null }): Promise<SubscriberRow[]> {
  return await sql<SubscriberRow[]>`
    select s.* from topic_subscribers m join subscribers s on s.id = m.subscriber_id
    where m.topic_id = ${topicId} and s.deleted_at is null ${opts.afterId ? sql`and m.subscriber_id < ${opts.afterId}` : sql``}
    order by m.subscriber_id desc limit ${opts.limit + 1}`;
}

/** Erasure: the subscriber leaves every topic, and each topic's count follows (in the erasure's transaction). */
export async function leaveAllTopics(tx: Tx, subscriberId: string): Promise<number> {
  const rows = await tx<{ topic_id: string }[]>`
    with gone as (delete from topic_subscribers where subscriber_id = ${subscriberId} returning topic_id)
    update topics t set subscriber_count = t.subscriber_count - 1 from gone where t.id = gone.topic_id
    returning t.id as topic_id`;
  return rows.length;
}
