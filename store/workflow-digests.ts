// Workflow digests and throttles in PostgreSQL (migration 0700): opening or joining the one open digest
// of a key, closing it, its members in arrival order; throttle passes counted under an advisory lock.
import { sql, type Tx } from "./db";
import { newId } from "./ids";
import { MicroBatcher } from "./micro-batcher";

export interface DigestRow {
  id: string;
  tenant_id: string;
  environment: string;
  lineage_id: string;
  recipient: string;
  digest_key: string;
  leader_run_id: string;
  status: "open" | "closed";
  max_events: number | null;
  event_count: number;
  opened_at: Date;
  closes_at: Date;
  closed_at: Date | null;
}

export interface DigestKey {
  tenantId: string;
  environment: string;
  lineageId: string;
  recipient: string;
  key: string;
}

export type DigestRole =
  /** `closed`: the digest filled in the transaction that opened it, with its members (nothing to wait for) */
  | { role: "leader"; digest: DigestRow; closed?: ClosedDigest }
  /** `closedNow`: this join reached max_events and closed the digest (the leader should be moved on), with its members */
  | { role: "member"; digest: DigestRow; closedNow: boolean; closed?: ClosedDigest };

// Openers of one key race on the partial unique index; more rounds than this (plus one per run of
// the batch) means a bug.
const MAX_ROUNDS = 20;

export interface DigestJoin {
  k: DigestKey;
  run: { id: string; data: Record<string, unknown> };
  windowMs: number;
  maxEvents: number | null;
  /**
   * When the run reached the step (null: now, PostgreSQL's clock). A run that reached it before an
   * open digest's window ended joins it even if its job runs later (queue lag never splits a window);
   * a digest it opens starts its window then.
   */
  arrivedAt: Date | null;
}

type Settled = { ok: true; role: DigestRole } | { ok: false; error: unknown };

// Concurrent jobs' joins share a transaction per digest key: the open digest's row is locked once
// for all of them and their membership rows go in one statement, instead of one lock wait per run.
const joinBatcher = new MicroBatcher<DigestJoin, Settled>(
  async (items) => {
    const groups = new Map<string, number[]>();
    items.forEach((it, n) => {
      const g = JSON.stringify([it.k.tenantId, it.k.environment, it.k.lineageId, it.k.recipient, it.k.key]);
      groups.set(g, [...(groups.get(g) ?? []), n]);
    });
    const out: Settled[] = new Array(items.length);
    await Promise.all(
      [...groups.values()].map(async (idx) => {
        try {
          const roles = await joinGroup(idx.map((n) => items[n]!));
          idx.forEach((n, j) => (out[n] = { ok: true, role: roles[j]! }));
        } catch (error) {
          for (const n of idx) out[n] = { ok: false, error };
        }
      }),
    );
    return out;
  },
  { maxSize: 500, maxWaitMs: 1, maxConcurrent: 4 },
);

/**
 * The run's place in a digest of `k`, decided once: a run already in a digest (a redelivered or
 * retried job) gets its earlier role back; otherwise it joins the open digest (locked, so a close
 * cannot pass it) or, when none is open (or the open one's window ended before the run arrived, it is
 * full, or its leader was cancelled), opens one and leads it. The membership rows and the digest's
 * count are written in one transaction, shared by the concurrent joins of one key.
 */
export async function joinOrOpenDigest(join: DigestJoin): Promise<DigestRole> {
  const r = await joinBatcher.submit(join);
  if (!r.ok) throw r.error;
  return r.role;
}

type OpenRow = DigestRow & { now: Date; leader_status: string | null };

/**
 * A run of the group found a membership written meanwhile (another job of the same run, a redelivery,
 * committed after this transaction's first look): the transaction is rolled back and run again, and
 * its first look then finds that run's role.
 */
class JoinedMeanwhile extends Error {}

/** The joins of one key (in submission order), in one transaction (run again if a run joined meanwhile). */
async function joinGroup(items: DigestJoin[]): Promise<DigestRole[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await joinGroupOnce(items);
    } catch (err) {
      if (!(err instanceof JoinedMeanwhile) || attempt >= 3) throw err;
    }
  }
}

async function joinGroupOnce(items: DigestJoin[]): Promise<DigestRole[]> {
  const k = items[0]!.k;
  return await sql.begin(async (tx) => {
    const roles: (DigestRole | undefined)[] = new Array(items.length);
    const mine = await tx<(DigestRow & { run_id: string })[]>`
      select m.run_id, d.* from workflow_digest_members m join workflow_digests d on d.id = m.digest_id
      where m.run_id = any(${items.map((it) => it.run.id)}::uuid[])`;
    const earlier = new Map(mine.map((m) => [m.run_id, m]));
    let rest: number[] = [];
    items.forEach((it, n) => {
      const m = earlier.get(it.run.id);
      if (!m) return rest.push(n);
      const { run_id: _, ...digest } = m;
      roles[n] = digest.leader_run_id === it.run.id ? { role: "leader", digest } : { role: "member", digest, closedNow: false };
    });
    // a run twice in one batch (its job run twice at once): the first decides, the second reads it back
    const seen = new Set<string>();
    const twice = rest.filter((n) => seen.has(items[n]!.run.id) || !seen.add(items[n]!.run.id));
    rest = rest.filter((n) => !twice.includes(n));

    for (let round = 0; rest.length && round < MAX_ROUNDS + items.length; round++) {
      const first = items[rest[0]!]!;
      const [open] = await tx<OpenRow[]>`
        select d.*, clock_timestamp() as now, r.status as leader_status
        from workflow_digests d left join workflow_runs r on r.id = d.leader_run_id
        where d.tenant_id = ${k.tenantId} and d.environment = ${k.environment} and d.lineage_id = ${k.lineageId}
          and d.recipient = ${k.recipient} and d.digest_key = ${k.key} and d.status = 'open'
        for update of d`;
      const arrived = (it: DigestJoin) => (it.arrivedAt && open && it.arrivedAt < open.now ? it.arrivedAt : open?.now ?? new Date());
      if (open) {
        const full = open.max_events !== null && open.event_count >= open.max_events;
        const dead = open.leader_status !== "running"; // cancelled (or gone): its digest is never sent
        if (full || dead || open.closes_at <= arrived(first)) {
          // its window ended before this run arrived (the leader has not closed it yet), it is full, or its
          // leader was cancelled: no one joins it any more
          await tx`update workflow_digests set status = 'closed', closed_at = least(clock_timestamp(), closes_at) where id = ${open.id}`;
          continue;
        }
        // the runs that arrived within its window, up to max_events, join it
        const room = open.max_events === null ? Infinity : open.max_events - open.event_count;
        const joining: number[] = [];
        for (const n of rest) {
          if (joining.length >= room || open.closes_at <= arrived(items[n]!)) break;
          joining.push(n);
        }
        const fills = open.max_events !== null && open.event_count + joining.length >= open.max_events;
        const rows = joining.map((n, j) => ({ run_id: items[n]!.run.id, position: open.event_count + j, data: items[n]!.run.data ?? {} }));
        const inserted = await tx`insert into workflow_digest_members (run_id, digest_id, position, data)
          select run_id, ${open.id}::uuid, position, data from jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb) as t(run_id uuid, position int, data jsonb)
          on conflict (run_id) do nothing returning run_id`;
        if (inserted.length < rows.length) throw new JoinedMeanwhile();
        const [digest] = await tx<DigestRow[]>`
          update workflow_digests set event_count = event_count + ${joining.length}
            ${fills ? tx`, status = 'closed', closed_at = clock_timestamp()` : tx``}
          where id = ${open.id} returning *`;
        // a digest that filled is read back whole here, so its leader need not read it again
        const closed = fills ? { digest: digest!, members: await membersOf(tx, open.id) } : undefined;
        joining.forEach((n, j) => (roles[n] = fills && j === joining.length - 1 ? { role: "member", digest: digest!, closedNow: true, closed } : { role: "member", digest: digest!, closedNow: false }));
        rest = rest.slice(joining.length);
        continue;
      }
      const id = newId();
      const [digest] = await tx<DigestRow[]>`
        insert into workflow_digests (id, tenant_id, environment, lineage_id, recipient, digest_key, leader_run_id, max_events, opened_at, closes_at)
        select ${id}, ${k.tenantId}, ${k.environment}, ${k.lineageId}, ${k.recipient}, ${k.key}, ${first.run.id}, ${first.maxEvents}, at,
               at + ${Math.max(0, Math.round(first.windowMs)) + " milliseconds"}::interval
        from (select ${
          first.arrivedAt
            ? // backdated to when the run reached the step, but never into a window already closed
              tx`greatest(least(${first.arrivedAt}::timestamptz, clock_timestamp()), coalesce((select max(p.closed_at) from workflow_digests p
                where p.tenant_id = ${k.tenantId} and p.environment = ${k.environment} and p.lineage_id = ${k.lineageId}
                  and p.recipient = ${k.recipient} and p.digest_key = ${k.key} and p.status = 'closed'), '-infinity'))`
            : tx`clock_timestamp()`
        } as at) a
        on conflict (tenant_id, environment, lineage_id, recipient, digest_key) where status = 'open' do nothing
        returning *`;
      if (!digest) continue; // another run opened it first (and committed): join it
      const [leads] = await tx`insert into workflow_digest_members (run_id, digest_id, position, data)
        values (${first.run.id}, ${id}, 0, ${JSON.stringify(first.run.data ?? {})}::text::jsonb) on conflict (run_id) do nothing returning run_id`;
      if (!leads) throw new JoinedMeanwhile();
      roles[rest[0]!] = { role: "leader", digest };
      rest = rest.slice(1);
    }
    // a leader whose digest filled in this same transaction goes on in its own job (the filling
    // member need not move it): it gets the digest as it is now, closed
    for (let n = 0; n < items.length; n++) {
      const filler = roles[n];
      if (filler?.role !== "member" || !filler.closedNow) continue;
      const lead = roles.findIndex((r) => r?.role === "leader" && r.digest.id === filler.digest.id);
      if (lead < 0) continue;
      roles[lead] = { role: "leader", digest: filler.digest, closed: filler.closed };
      roles[n] = { role: "member", digest: filler.digest, closedNow: false };
    }
    if (rest.length) throw new Error(`run ${items[rest[0]!]!.run.id}: no digest opened or joined after ${MAX_ROUNDS + items.length} rounds`);
    for (const n of twice) {
      const first = roles[items.findIndex((it, m) => m !== n && it.run.id === items[n]!.run.id && roles[m])]!;
      roles[n] = first.role === "member" ? { role: "member", digest: first.digest, closedNow: false } : first;
    }
    return roles as DigestRole[];
  });
}

// ---------------------------------------------------------------------------------------------
// Membership at trigger (docs/workflows.md): when a version's first step is a digest, the trigger's
// own transaction places its runs, so a merged run never queues in the workflow-run actor.

export interface TriggerPlacement {
  k: DigestKey;
  run: { id: string; data: Record<string, unknown> };
  windowMs: number;
  maxEvents: number | null;
}

export type TriggerPlace = { role: "leader" | "member"; digest: { id: string; leader_run_id: string } };

export interface TriggerPlaced {
  /** each run's place, in the order given */
  places: TriggerPlace[];
  /** leaders (opened before this transaction) whose digest this transaction filled: wake them now */
  filled: string[];
}

const keyText = (k: DigestKey) => JSON.stringify([k.tenantId, k.environment, k.lineageId, k.recipient, k.key]);

/**
 * Places new runs (not yet written, every one arriving now) in the digests of their keys, in one
 * transaction that also writes the runs (`write`, given each run's place): a run joins the open digest
 * of its key (its row locked, so the leader's close either waits for this commit and reads the member,
 * or closed it first and this run opens the next digest) or, when none is open (or the open one's
 * window ended, it is full, or its leader was cancelled), opens one and leads it. Keys are locked in
 * their order, so two such transactions never wait on each other in a cycle; a deadlock with another
 * writer (never expected) runs the transaction again.
 */
export async function placeAtTrigger(items: TriggerPlacement[], write: (tx: Tx, places: TriggerPlace[]) => Promise<void>): Promise<TriggerPlaced> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await placeAtTriggerOnce(items, write);
    } catch (err) {
      if ((err as { code?: string }).code !== "40P01" || attempt >= 3) throw err;
    }
  }
}

async function placeAtTriggerOnce(items: TriggerPlacement[], write: (tx: Tx, places: TriggerPlace[]) => Promise<void>): Promise<TriggerPlaced> {
  return await sql.begin(async (tx) => {
    const places: (TriggerPlace | undefined)[] = new Array(items.length);
    const groups = new Map<string, number[]>();
    items.forEach((it, n) => groups.set(keyText(it.k), [...(groups.get(keyText(it.k)) ?? []), n]));
    // the runs of each key still to place, keys in their locking order
    let pending = new Map([...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const members: { run_id: string; digest_id: string; position: number; data: Record<string, unknown> }[] = [];
    const openedHere = new Set<string>();
    const filled = new Set<string>();
    for (let round = 0; pending.size; round++) {
      if (round > MAX_ROUNDS + items.length) throw new Error(`trigger: no digest opened or joined after ${round} rounds`);
      const keys = [...pending.values()].map((idx) => items[idx[0]!]!.k);
      const open = await tx<OpenRow[]>`
        select d.*, clock_timestamp() as now, r.status as leader_status
        from workflow_digests d left join workflow_runs r on r.id = d.leader_run_id
        where (d.tenant_id, d.environment, d.lineage_id, d.recipient, d.digest_key) in (
            select * from unnest(${keys.map((k) => k.tenantId)}::uuid[], ${keys.map((k) => k.environment)}::text[],
              ${keys.map((k) => k.lineageId)}::uuid[], ${keys.map((k) => k.recipient)}::text[], ${keys.map((k) => k.key)}::text[]))
          and d.status = 'open'
        order by d.tenant_id, d.environment, d.lineage_id, d.recipient, d.digest_key
        for update of d`;
      const openOf = new Map(open.map((o) => [keyText({ tenantId: o.tenant_id, environment: o.environment, lineageId: o.lineage_id, recipient: o.recipient, key: o.digest_key }), o]));
      const next = new Map<string, number[]>();
      const stale: string[] = [];
      const toOpen: { g: string; n: number }[] = [];
      const joinable: { g: string; o: OpenRow; rest: number[] }[] = [];
      for (const [g, rest] of pending) {
        const o = openOf.get(g);
        if (!o) {
          toOpen.push({ g, n: rest[0]! });
          continue;
        }
        // a digest opened by this transaction has its leader's run written only at the end
        const live = o.leader_status === "running" || openedHere.has(o.id);
        const full = o.max_events !== null && o.event_count >= o.max_events;
        if (!live || full || o.closes_at <= o.now) {
          // its window ended (the leader has not closed it yet), it is full, or its leader was
          // cancelled: no one joins it any more; the next round opens the next one
          stale.push(o.id);
          next.set(g, rest);
          continue;
        }
        joinable.push({ g, o, rest });
      }
      if (stale.length) await tx`update workflow_digests set status = 'closed', closed_at = least(clock_timestamp(), closes_at) where id = any(${stale}::uuid[])`;
      if (toOpen.length) {
        const rows = toOpen.map(({ n }) => {
          const it = items[n]!;
          return {
            id: newId(), tenant_id: it.k.tenantId, environment: it.k.environment, lineage_id: it.k.lineageId, recipient: it.k.recipient,
            digest_key: it.k.key, leader_run_id: it.run.id, max_events: it.maxEvents, window_ms: Math.max(0, Math.round(it.windowMs)),
          };
        });
        const opened = await tx<(DigestRow & { now: Date })[]>`
          insert into workflow_digests (id, tenant_id, environment, lineage_id, recipient, digest_key, leader_run_id, max_events, opened_at, closes_at)
          select id, tenant_id, environment, lineage_id, recipient, digest_key, leader_run_id, max_events, c.at, c.at + make_interval(secs => window_ms / 1000.0)
          from (select clock_timestamp() as at) c, jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb) as t(id uuid, tenant_id uuid, environment text,
            lineage_id uuid, recipient text, digest_key text, leader_run_id uuid, max_events int, window_ms bigint)
          order by tenant_id, environment, lineage_id, recipient, digest_key
          on conflict (tenant_id, environment, lineage_id, recipient, digest_key) where status = 'open' do nothing
          returning *, opened_at as now`;
        const byLeader = new Map(opened.map((d) => [d.leader_run_id, d]));
        for (const { g, n } of toOpen) {
          const rest = pending.get(g)!;
          const d = byLeader.get(items[n]!.run.id);
          // another transaction opened it first (and committed): the next round joins it
          if (!d) {
            next.set(g, rest);
            continue;
          }
          openedHere.add(d.id);
          places[n] = { role: "leader", digest: d };
          members.push({ run_id: items[n]!.run.id, digest_id: d.id, position: 0, data: items[n]!.run.data ?? {} });
          if (rest.length > 1) joinable.push({ g, o: { ...d, leader_status: null }, rest: rest.slice(1) });
        }
      }
      // the runs of each key join its open digest, up to max_events; the rest go to the next round
      const counts: { id: string; event_count: number; fills: boolean }[] = [];
      for (const { g, o, rest } of joinable) {
        const room = o.max_events === null ? Infinity : o.max_events - o.event_count;
        const joining = rest.slice(0, Math.max(0, room));
        joining.forEach((n, j) => {
          places[n] = { role: "member", digest: o };
          members.push({ run_id: items[n]!.run.id, digest_id: o.id, position: o.event_count + j, data: items[n]!.run.data ?? {} });
        });
        const fills = o.max_events !== null && o.event_count + joining.length >= o.max_events;
        counts.push({ id: o.id, event_count: o.event_count + joining.length, fills });
        if (fills && !openedHere.has(o.id)) filled.add(o.leader_run_id);
        if (rest.length > joining.length) next.set(g, rest.slice(joining.length));
      }
      if (counts.length)
        await tx`update workflow_digests d set event_count = v.event_count,
            status = case when v.fills then 'closed' else d.status end,
            closed_at = case when v.fills then clock_timestamp() else d.closed_at end
          from jsonb_to_recordset(${JSON.stringify(counts)}::text::jsonb) as v(id uuid, event_count int, fills boolean)
          where d.id = v.id`;
      pending = new Map([...next.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    await tx`insert into workflow_digest_members (run_id, digest_id, position, data)
      select run_id, digest_id, position, data from jsonb_to_recordset(${JSON.stringify(members)}::text::jsonb) as t(run_id uuid, digest_id uuid, position int, data jsonb)`;
    // a leader whose digest filled here is due now: if the wake-up (a message) is lost with Redis, the
    // reconciler re-enqueues it from this rather than at its window's end
    if (filled.size)
      await tx`update workflow_runs set next_due_at = clock_timestamp()
        where id in (select id from workflow_runs where id = any(${[...filled]}::uuid[]) and status = 'running' order by id for no key update)`;
    await write(tx, places as TriggerPlace[]);
    return { places: places as TriggerPlace[], filled: [...filled] };
  });
}

/**
 * Whether a run of the leader's version for the digest's recipient, triggered before the window's end,
 * is still queued (never written, and in no digest): it belongs in this window, so the leader waits.
 */
export async function windowRunsQueued(d: DigestRow, leader: { id: string; workflow_id: string; recipient: string }): Promise<boolean> {
  // the leader's own recipient: the digest's column holds a long one hashed (boundedKey)
  const rows = await sql`
    select 1 from workflow_runs r
    where r.workflow_id = ${leader.workflow_id} and md5(r.recipient) = md5(${leader.recipient}) and r.recipient = ${leader.recipient}
      and r.rev = 0 and r.status = 'running'
      and r.started_at < ${d.closes_at} and r.id <> ${leader.id}
      and not exists (select 1 from workflow_digest_members m where m.run_id = r.id)
    limit 1`;
  return rows.length > 0;
}

/**
 * A cancelled leader's open digest closes at once (nothing is sent for it): a run arriving later opens
 * the next digest instead of joining one no one will send. Joins also treat a digest whose leader is no
 * longer running as closed, so a cancel that stopped before this statement leaves nothing behind.
 */
export async function closeDigestOfCancelledLeader(runId: string): Promise<void> {
  await sql`update workflow_digests set status = 'closed', closed_at = clock_timestamp() where leader_run_id = ${runId} and status = 'open'`;
}

/** The digest a run leads (null: none). */
export async function digestLedBy(runId: string): Promise<DigestRow | null> {
  const [row] = await sql<DigestRow[]>`select * from workflow_digests where leader_run_id = ${runId}`;
  return row ?? null;
}

export interface ClosedDigest {
  digest: DigestRow;
  members: { run_id: string; data: Record<string, unknown> }[];
}

/**
 * Closes the digest (idempotent: a closed one keeps its close time) and returns it with its members
 * in arrival order. The update waits for joins holding the row, so every member is read; a digest
 * already closed (by the join that filled it) is only read.
 */
export async function closeDigest(d: DigestRow): Promise<ClosedDigest> {
  let digest = d;
  if (d.status !== "closed") {
    const [row] = await sql<DigestRow[]>`
      update workflow_digests set status = 'closed', closed_at = coalesce(closed_at, least(clock_timestamp(), closes_at))
      where id = ${d.id} returning *`;
    if (!row) throw new Error(`digest ${d.id} is missing`);
    digest = row;
  }
  return { digest, members: await membersOf(sql, d.id) };
}

async function membersOf(q: typeof sql | Tx, digestId: string): Promise<ClosedDigest["members"]> {
  return await q<ClosedDigest["members"]>`select run_id, data from workflow_digest_members where digest_id = ${digestId} order by position`;
}

/** The trigger data of the digest a run led, in arrival order (for its later steps' templates). */
export async function digestEventsOfLeader(runId: string): Promise<Record<string, unknown>[]> {
  const rows = await sql<{ data: Record<string, unknown> }[]>`
    select m.data from workflow_digests d join workflow_digest_members m on m.digest_id = d.id
    where d.leader_run_id = ${runId} order by m.position`;
  return rows.map((r) => r.data);
}

/**
 * Whether the run passes a throttle of `limit` per rolling `windowMs` for `key` (scope included).
 * Exact under concurrency: a transaction-scoped advisory lock on the key serializes the count and
 * the insert of the pass. A run that passed before (a retried job) passes again without counting twice.
 */
export async function throttlePass(
  k: { tenantId: string; environment: string; key: string },
  run: { id: string; step: number },
  limit: number,
  windowMs: number,
): Promise<boolean> {
  return await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${`${k.tenantId}:${k.environment}:${k.key}`}, 7021))`;
    const [mine] = await tx`select 1 from workflow_throttle_passes where run_id = ${run.id} and step = ${run.step}`;
    if (mine) return true;
    const [count] = await tx<{ n: number }[]>`
      select count(*)::int as n from workflow_throttle_passes
      where tenant_id = ${k.tenantId} and environment = ${k.environment} and throttle_key = ${k.key}
        and passed_at > clock_timestamp() - ${Math.max(0, Math.round(windowMs)) + " milliseconds"}::interval`;
    // passes older than the window never count again: pruned here, under the key's lock
    await tx`delete from workflow_throttle_passes
      where tenant_id = ${k.tenantId} and environment = ${k.environment} and throttle_key = ${k.key}
        and passed_at <= clock_timestamp() - ${Math.max(0, Math.round(windowMs)) + " milliseconds"}::interval`;
    if (count!.n >= limit) return false;
    await tx`insert into workflow_throttle_passes (run_id, step, tenant_id, environment, throttle_key, passed_at)
      values (${run.id}, ${run.step}, ${k.tenantId}, ${k.environment}, ${k.key}, clock_timestamp())`;
    return true;
  });
}
