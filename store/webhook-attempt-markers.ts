// The durable markers of webhook attempts whose message lives only in Redis (migration 0460,
// docs/webhooks.md "Durability"): written by the relay and the dispatcher, read by the repair scan.
import { sql, type Tx } from "./db";
import { keyDays } from "./history-keys";

/** Identifies one owed attempt (the table's primary key). */
export interface DueKey {
  webhook_id: string;
  event_id: string;
  attempt: number;
}

/**
 * Manual attempts the relay just put on the stream (the automatic ones are marked in the relay's
 * own statement, store/webhooks.ts takeOutbox): one row per pending delivery, numbered as its
 * record. A manual attempt takes over an automatic one of the same number.
 */
export async function markManualRelayed(tx: Tx, relayed: { webhookId: string; eventId: string; deliveryId: string }[]): Promise<void> {
  if (!relayed.length) return;
  const doc = JSON.stringify(relayed.map((r) => ({ webhook_id: r.webhookId, event_id: r.eventId, id: r.deliveryId })));
  // by the partition key (event_id, its days as literals: store/history-keys.ts) and (webhook_id, id), indexed in every partition of webhook_deliveries
  await tx`
    insert into webhook_due (webhook_id, event_id, attempt, delivery_id, due_at, enqueued_at)
    select distinct on (d.id) d.webhook_id, d.event_id, d.attempt, d.id, now(), now()
    from jsonb_to_recordset(${doc}::text::jsonb) as v(webhook_id uuid, event_id uuid, id uuid)
    join webhook_deliveries d on d.event_id = v.event_id ${keyDays("d.event_id", relayed.map((r) => r.eventId))} and d.webhook_id = v.webhook_id and d.id = v.id
    where d.status = 'pending'
    on conflict (webhook_id, event_id, attempt) do update
      set delivery_id = excluded.delivery_id, due_at = excluded.due_at, enqueued_at = excluded.enqueued_at, repairs = 0`;
}

/** An attempt the dispatcher recorded, as settleDue needs it. */
export interface SettledAttempt {
  webhookId: string;
  eventId: string;
  attempt: number;
  /** set when attempt + 1 is owed (an automatic failure with a retry) */
  nextRetryAt: Date | null;
}

/**
 * In the transaction that records attempts: each one's marker (and any older marker of its event)
 * goes, and a failed automatic attempt with a retry leaves the marker of the next one, due at its
 * next_retry_at and carried by a runtime timer meanwhile (enqueued_at null). A manual attempt of
 * that number, already relayed, keeps its own marker.
 */
export async function settleDue(tx: Tx, attempts: SettledAttempt[]): Promise<void> {
  if (!attempts.length) return;
  // key order (webhook, event, attempt), like every multi-row writer
  const sorted = [...attempts].sort(inKeyOrder);
  // The relay publishes before its COMMIT (store/webhooks.ts takeOutbox; a relay killed between the two leaves
  // its rows for the next one), so an attempt can be recorded while the relay's marker of it is uncommitted,
  // invisible to a delete, which would leave it behind (the repair scan would drop it later). Inserting every
  // recorded key first waits on the primary key for such a marker's transaction; the statement after it (a new
  // snapshot; sent in the same pipeline, so no extra round trip) then sees the marker and removes it with these
  // placeholders.
  const keys = sorted.filter((a, i) => i === 0 || inKeyOrder(sorted[i - 1]!, a) !== 0);
  const placeholders = tx`
    insert into webhook_due (webhook_id, event_id, attempt, due_at)
    select webhook_id, event_id, attempt, now() from jsonb_to_recordset(${JSON.stringify(keys.map(keyRow))}::text::jsonb) as v(webhook_id uuid, event_id uuid, attempt int)
    on conflict (webhook_id, event_id, attempt) do nothing`.execute();
  placeholders.catch(() => {}); // awaited with the statement below
  // one entry per webhook and event: the latest attempt (the last of its pair in key order)
  const byPair = new Map(sorted.map((a) => [`${a.webhookId}:${a.eventId}`, a]));
  const rows = [...byPair.values()].map((a) => ({ ...keyRow(a), next_retry_at: a.nextRetryAt?.toISOString() ?? null }));
  await Promise.all([placeholders, settle(tx, rows)]);
}

const keyRow = (a: SettledAttempt) => ({ webhook_id: a.webhookId, event_id: a.eventId, attempt: a.attempt });

function inKeyOrder(a: SettledAttempt, b: SettledAttempt): number {
  if (a.webhookId !== b.webhookId) return a.webhookId < b.webhookId ? -1 : 1;
  if (a.eventId !== b.eventId) return a.eventId < b.eventId ? -1 : 1;
  return a.attempt - b.attempt;
}

/** Deletes the markers up to each pair's attempt, and writes the next attempt's where a retry is owed. */
async function settle(tx: Tx, rows: (ReturnType<typeof keyRow> & { next_retry_at: string | null })[]): Promise<void> {
  const doc = JSON.stringify(rows);
  if (!rows.some((r) => r.next_retry_at)) {
    await tx`
      delete from webhook_due u
      using jsonb_to_recordset(${doc}::text::jsonb) as v(webhook_id uuid, event_id uuid, attempt int)
      where u.webhook_id = v.webhook_id and u.event_id = v.event_id and u.attempt <= v.attempt`;
    return;
  }
  // the delete and the insert touch different attempt numbers, so one statement does both
  await tx`
    with v as (select * from jsonb_to_recordset(${doc}::text::jsonb) as v(webhook_id uuid, event_id uuid, attempt int, next_retry_at timestamptz)),
    gone as (
      delete from webhook_due u using v
      where u.webhook_id = v.webhook_id and u.event_id = v.event_id and u.attempt <= v.attempt)
    insert into webhook_due (webhook_id, event_id, attempt, due_at)
    select v.webhook_id, v.event_id, v.attempt + 1, v.next_retry_at from v
    join webhooks w on w.id = v.webhook_id -- a webhook deleted meanwhile gets no retry, and leaves no marker
    where v.next_retry_at is not null
    on conflict (webhook_id, event_id, attempt) do nothing`;
}

/** Deletes a webhook's markers (with the webhook: store/webhooks.ts deleteWebhook). */
export async function deleteDueOf(tx: Tx, webhookId: string): Promise<void> {
  await tx`delete from webhook_due where webhook_id = ${webhookId}`;
}

// ---------------------------------------------------------------------------------------------
// The repair scan's reads and writes (domain/webhooks/repair.ts).

export interface DueCandidate extends DueKey {
  delivery_id: string | null;
  repairs: number;
  /** epoch ms of enqueued_at; null while a timer carries the attempt */
  enqueued_ms: number | null;
  /**
   * Whether the dispatcher would still make the attempt: its webhook exists, is active and
   * subscribed to the event's type, the event exists, and neither this attempt (or a later one) nor
   * a success is recorded; for a manual attempt, its delivery record is still pending (an inactive
   * webhook's pending record is completed as `webhook_inactive` by the dispatcher, without a send).
   */
  owed: boolean;
}

const ms = (n: number) => `${Math.max(0, Math.round(n))} milliseconds`;

/** Overdue by graceMs (on `webhook_due d`): owed that long ago, and sent graceMs x 2^repairs ago (at most 32 x). */
const overdue = (graceMs: number) => {
  const grace = ms(graceMs);
  return sql`d.due_at < now() - ${grace}::interval
    and (d.enqueued_at is null or d.enqueued_at < now() - ${grace}::interval * power(2, least(d.repairs, 5)))`;
};

/** Markers overdue by graceMs (see `overdue`), oldest due first, with whether they are still owed. */
export async function dueCandidates(opts: { graceMs: number; limit: number; tenantId?: string }): Promise<DueCandidate[]> {
  return await sql<DueCandidate[]>`
    select u.webhook_id, u.event_id, u.attempt, u.delivery_id, u.repairs,
      (extract(epoch from u.enqueued_at) * 1000)::float8 as enqueued_ms,
      coalesce(case
        when u.delivery_id is not null then
          exists (select 1 from webhook_deliveries d where d.event_id = u.event_id and d.webhook_id = u.webhook_id and d.id = u.delivery_id and d.status = 'pending')
        else
          w.active and e.type = any (w.events) and not exists (
            select 1 from webhook_deliveries d
            where d.webhook_id = u.webhook_id and d.event_id = u.event_id and (d.attempt >= u.attempt or d.status = 'success'))
      end, false) as owed
    from (
      -- the page first (the due_at index, oldest first), then one lookup per row of it
      select d.* from webhook_due d
      ${opts.tenantId ? sql`join webhooks t on t.id = d.webhook_id and t.tenant_id = ${opts.tenantId}` : sql``}
      where ${overdue(opts.graceMs)}
      order by d.due_at
      limit ${opts.limit}) u
    left join webhooks w on w.id = u.webhook_id
    left join events e on e.id = u.event_id
    order by u.due_at`;
}

const keysDoc = (keys: DueKey[]) => JSON.stringify(keys.map((k) => ({ webhook_id: k.webhook_id, event_id: k.event_id, attempt: k.attempt })));

/**
 * The scan's writes lock the rows of `keys` in key order and skip those a dispatcher transaction
 * holds (it is settling them), so the scan never waits on a record batch nor deadlocks with one.
 */
const lockedKeys = (keys: DueKey[], extra = sql``) => sql`
  select d.webhook_id, d.event_id, d.attempt from webhook_due d
  join jsonb_to_recordset(${keysDoc(keys)}::text::jsonb) as v(webhook_id uuid, event_id uuid, attempt int)
    on d.webhook_id = v.webhook_id and d.event_id = v.event_id and d.attempt = v.attempt
  where true ${extra}
  order by d.webhook_id, d.event_id, d.attempt
  for update of d skip locked`;

/** Drops markers of attempts no longer owed (the dispatcher would make none of them). */
export async function dropDue(keys: DueKey[]): Promise<number> {
  if (!keys.length) return 0;
  const rows = await sql`
    delete from webhook_due where (webhook_id, event_id, attempt) in (${lockedKeys(keys)})
    returning 1`;
  return rows.length;
}

/**
 * Markers whose timer was found gone: from now on their message (if the timer fired) is known to
 * have entered the stream before now, which the next scan compares with the stream's backlog.
 */
export async function markTimerGone(keys: DueKey[]): Promise<void> {
  if (!keys.length) return;
  await sql`
    update webhook_due set enqueued_at = now()
    where (webhook_id, event_id, attempt) in (${lockedKeys(keys, sql`and d.enqueued_at is null`)})`;
}

/**
 * Marks markers as re-enqueued now (one more repair) when they are still there and still overdue
 * (so of two scans at once, one sends); resolves to those, the ones to send.
 */
export async function touchRepaired(keys: DueKey[], graceMs: number): Promise<DueKey[]> {
  if (!keys.length) return [];
  return await sql<DueKey[]>`
    update webhook_due u set enqueued_at = now(), repairs = u.repairs + 1
    where (u.webhook_id, u.event_id, u.attempt) in (${lockedKeys(keys, sql`and ${overdue(graceMs)}`)})
    returning u.webhook_id, u.event_id, u.attempt`;
}
