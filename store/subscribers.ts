// Subscriber repository: lookup by id / external_id / address, multi-row upsert on external_id,
// search-list, update, and the erasure rewrite. Every query is scoped by tenant and environment.
import { sql, type Scope, type Tx } from "./db";
import { isUuid, newId } from "./ids";
import { iso } from "./time";
import { config } from "../config";
import { MicroBatcher } from "./micro-batcher";

export interface Consent {
  given_at: string;
  ip: string | null;
  method: string;
}

export interface SubscriberRow {
  id: string;
  tenant_id: string;
  environment: string;
  external_id: string;
  email: string | null;
  phone: string | null;
  name: string | null;
  locale: string | null;
  timezone: string | null;
  custom_properties: Record<string, unknown>;
  consent: Consent | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Normalized subscriber fields; `undefined` = not given (keep), `null` = clear (PUT only). */
export interface SubscriberFields {
  external_id?: string;
  email?: string | null;
  phone?: string | null;
  name?: string | null;
  locale?: string | null;
  timezone?: string | null;
  custom_properties?: Record<string, unknown> | null;
}

/**
 * The subscriber a notification's recipient belongs to: the oldest live subscriber whose
 * external_id, email (case-insensitively), phone or id equals it. domain/delivery/suppression.ts matches
 * addresses the same way (and checks every owner of a shared address).
 */
export async function findSubscriberOwning(scope: Scope, recipient: string, tx: Tx = sql): Promise<SubscriberRow | undefined> {
  // one index lookup per way of owning it: an OR of them let PostgreSQL, misled by a tenant's
  // stale statistics, walk every subscriber of the tenant (118 ms at 20,000; see findSubscriber)
  const { tenantId, environment } = scope;
  const [row] = await tx<SubscriberRow[]>`
    select * from (
      select * from subscribers where tenant_id = ${tenantId} and environment = ${environment} and external_id = ${recipient}
      union
      select * from subscribers where tenant_id = ${tenantId} and environment = ${environment} and email is not null and lower(email) = lower(${recipient})
      union
      select * from subscribers where tenant_id = ${tenantId} and environment = ${environment} and phone is not null and phone = ${recipient}
      ${isUuid(recipient) ? tx`union select * from subscribers where id = ${recipient}::uuid and tenant_id = ${tenantId} and environment = ${environment}` : tx``}
    ) s
    where deleted_at is null
    order by created_at, id
    limit 1`;
  return row;
}

// The accept path's look-up, batched: one statement for the concurrent accepts of every tenant (it
// was one statement per notification, the accept path's only one). Same rule as findSubscriberOwning.
async function owningBatch(items: { scope: Scope; recipient: string }[]): Promise<(SubscriberRow | undefined)[]> {
  const doc = JSON.stringify(
    items.map((q, i) => ({ i, tenant_id: q.scope.tenantId, environment: q.scope.environment, recipient: q.recipient, rid: isUuid(q.recipient) ? q.recipient : null })),
  );
  const rows = await sql<(SubscriberRow & { i$: number })[]>`
    select v.i as "i$", s.* from jsonb_to_recordset(${doc}::text::jsonb) as v(i int, tenant_id uuid, environment text, recipient text, rid uuid)
    cross join lateral (
      select * from subscribers s
      where s.tenant_id = v.tenant_id and s.environment = v.environment and s.deleted_at is null
        and (s.external_id = v.recipient or lower(s.email) = lower(v.recipient) or s.phone = v.recipient or s.id = v.rid)
      order by s.created_at, s.id
      limit 1) s`;
  const out: (SubscriberRow | undefined)[] = new Array(items.length).fill(undefined);
  for (const { i$, ...row } of rows) out[i$] = row as SubscriberRow;
  return out;
}
// the accept path's look-up: the first batched statement of an accept, so under steady traffic it is the one that
// waits for company (config.acceptBatch.lookupBusyWaitMs); its callers then reach the insert batch together
const owningBatcher = new MicroBatcher(owningBatch, {
  maxSize: 500,
  maxWaitMs: 1,
  busyWaitMs: () => config.acceptBatch.lookupBusyWaitMs,
  maxConcurrent: 2,
  name: "subscriber look-up",
});

/** findSubscriberOwning outside a transaction, coalesced with concurrent callers into one statement. */
export function findSubscriberOwningBatched(scope: Scope, recipient: string): Promise<SubscriberRow | undefined> {
  return owningBatcher.submit({ scope, recipient });
}

/**
 * findSubscriber for many (scope, id or external_id) at once, in the caller's transaction: the
 * same rule (live only; by id first, then by external_id: one index lookup each), one statement.
 * One answer per query, in order (undefined: none).
 */
export async function findSubscribersBatch(tx: Tx, queries: { scope: Scope; ref: string }[]): Promise<(SubscriberRow | undefined)[]> {
  if (queries.length === 0) return [];
  const doc = JSON.stringify(
    queries.map((q, i) => ({ i, tenant_id: q.scope.tenantId, environment: q.scope.environment, ref: q.ref, rid: isUuid(q.ref) ? q.ref : null })),
  );
  const rows = await tx<(SubscriberRow & { i$: number; by$: number })[]>`
    select v.i as "i$", s.* from jsonb_to_recordset(${doc}::text::jsonb) as v(i int, tenant_id uuid, environment text, ref text, rid uuid)
    cross join lateral (
      select * from (
        select s.*, 0 as "by$" from subscribers s
        where v.rid is not null and s.id = v.rid and s.tenant_id = v.tenant_id and s.environment = v.environment and s.deleted_at is null
        union all
        select s.*, 1 from subscribers s
        where s.tenant_id = v.tenant_id and s.environment = v.environment and s.external_id = v.ref and s.deleted_at is null
      ) m order by "by$" limit 1) s`;
  const out: (SubscriberRow | undefined)[] = new Array(queries.length).fill(undefined);
  for (const { i$, by$: _, ...row } of rows) out[i$] = row as SubscriberRow;
  return out;
}

/** A live (not deleted) subscriber by its id or its external_id; the id wins when both match. */
export async function findSubscriber(
  scope: Scope,
  idOrExternalId: string,
  tx: Tx = sql,
  opts: { forUpdate?: boolean; includeDeleted?: boolean } = {},
): Promise<SubscriberRow | undefined> {
  const lock = opts.forUpdate ? tx`for update` : tx``;
  const live = opts.includeDeleted ? tx`` : tx`and deleted_at is null`;
  // by id first (it wins), then by external_id (unique in the scope): two index lookups. One
  // statement with `external_id = $1 or id = $1` was planned, for a tenant whose subscribers were
  // just imported (statistics not yet showing them), as a walk over all of the tenant's
  // subscribers: 118 ms each at 20,000, which made every send of a broadcast crawl.
  if (isUuid(idOrExternalId)) {
    const [byId] = await tx<SubscriberRow[]>`
      select * from subscribers
      where id = ${idOrExternalId}::uuid and tenant_id = ${scope.tenantId} and environment = ${scope.environment} ${live}
      ${lock}`;
    if (byId) return byId;
  }
  const [row] = await tx<SubscriberRow[]>`
    select * from subscribers
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and external_id = ${idOrExternalId} ${live}
    ${lock}`;
  return row;
}

export interface UpsertResult {
  row: SubscriberRow;
  inserted: boolean;
}

const COLUMNS = ["email", "phone", "name", "locale", "timezone"] as const;

/**
 * Inserts or updates many subscribers with two set-based statements over one jsonb
 * parameter (jsonb_to_recordset): INSERT ... ON CONFLICT DO NOTHING for new external_ids,
 * then UPDATE ... FROM for the existing ones. Given fields replace stored ones; absent or null
 * fields keep the stored value (an upsert never clears; PUT does). Consent is set only when
 * the row is created. Rows come back in input order. Callers make sure external_ids are
 * unique within `entries`; an external_id held by a deleted row is left untouched and missing
 * from the result (callers check erasures first).
 */
export async function upsertSubscribers(
  tx: Tx,
  scope: Scope,
  entries: SubscriberFields[],
  consent: Consent,
): Promise<UpsertResult[]> {
  if (entries.length === 0) return [];
  const now = new Date().toISOString();
  const payload = entries.map((e, i) => ({
    ord: i,
    id: newId(),
    external_id: e.external_id,
    email: e.email ?? null,
    phone: e.phone ?? null,
    name: e.name ?? null,
    locale: e.locale ?? null,
    timezone: e.timezone ?? null,
    custom_properties: e.custom_properties ?? null,
  }));
  const input = tx`jsonb_to_recordset(${tx.json(payload as any)}::jsonb) as i(
      ord int, id uuid, external_id text, email text, phone text, name text, locale text, timezone text,
      custom_properties jsonb)`;
  const inserted = await tx<SubscriberRow[]>`
    insert into subscribers (id, tenant_id, environment, external_id, email, phone, name, locale, timezone,
                             custom_properties, consent, created_at, updated_at)
    select i.id, ${scope.tenantId}, ${scope.environment}, i.external_id, i.email, i.phone, i.name, i.locale, i.timezone,
           coalesce(i.custom_properties, '{}'::jsonb), ${tx.json(consent as any)}::jsonb, ${now}, ${now}
    from ${input} order by i.ord
    on conflict (tenant_id, environment, external_id) do nothing
    returning *`;
  const byExternal = new Map<string, UpsertResult>();
  for (const row of inserted) byExternal.set(row.external_id, { row, inserted: true });
  if (inserted.length < entries.length) {
    const fresh = inserted.map((r) => r.external_id);
    const updated = await tx<SubscriberRow[]>`
      update subscribers s set
        email = coalesce(i.email, s.email), phone = coalesce(i.phone, s.phone), name = coalesce(i.name, s.name),
        locale = coalesce(i.locale, s.locale), timezone = coalesce(i.timezone, s.timezone),
        custom_properties = coalesce(i.custom_properties, s.custom_properties), updated_at = ${now}
      from ${input}
      where s.tenant_id = ${scope.tenantId} and s.environment = ${scope.environment}
        and s.external_id = i.external_id and s.deleted_at is null and not (i.external_id = any(${fresh}::text[]))
      returning s.*`;
    for (const row of updated) byExternal.set(row.external_id, { row, inserted: false });
  }
  const out: UpsertResult[] = [];
  for (const e of entries) {
    const r = byExternal.get(e.external_id!);
    if (r) out.push(r);
  }
  return out;
}

/** PUT: replaces the given fields (null clears) of a live subscriber. */
export async function updateSubscriber(
  tx: Tx,
  scope: Scope,
  id: string,
  fields: SubscriberFields,
): Promise<SubscriberRow | undefined> {
  const set: Record<string, unknown> = {};
  for (const c of [...COLUMNS, "external_id"] as const) if (fields[c] !== undefined) set[c] = fields[c];
  if (fields.custom_properties !== undefined) set.custom_properties = tx.json((fields.custom_properties ?? {}) as any);
  set.updated_at = new Date();
  const [row] = await tx<SubscriberRow[]>`
    update subscribers set ${tx(set)}
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and id = ${id} and deleted_at is null
    returning *`;
  return row;
}

export async function listSubscribers(
  scope: Scope,
  opts: { limit: number; offset: number; search?: string | null },
): Promise<{ rows: SubscriberRow[]; total: number }> {
  const term = opts.search?.trim();
  const pattern = term ? `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const filter = pattern
    ? sql`and (email ilike ${pattern} or name ilike ${pattern} or external_id ilike ${pattern})`
    : sql``;
  const base = sql`from subscribers
    where tenant_id = ${scope.tenantId} and environment = ${scope.environment} and deleted_at is null ${filter}`;
  const [[count], rows] = await Promise.all([
    sql<{ total: number }[]>`select count(*)::int as total ${base}`,
    sql<SubscriberRow[]>`select * ${base} order by created_at desc, id desc limit ${opts.limit} offset ${opts.offset}`,
  ]);
  return { rows, total: count!.total };
}
