// Workflow digests and throttles in PostgreSQL (migration 0700): opening or joining the one open digest
// of a key, closing it, its members in arrival order; throttle passes counted under an advisory lock.
import { sql } from "./db";
import { newId } from "./ids";

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
  | { role: "leader"; digest: DigestRow }
  /** `closedNow`: this join reached max_events and closed the digest (the leader should be woken) */
  | { role: "member"; digest: DigestRow; closedNow: boolean };

// Openers of one key race on the partial unique index; more rounds than this means a bug.
const MAX_ROUNDS = 20;

/**
 * The run's place in a digest of `k`, decided once: a run already in a digest (a redelivered or
 * retried job) gets its earlier role back; otherwise it joins the open digest (locked, so a close
 * cannot pass it) or, when none is open (or the open one's window ended or is full), opens one and
 * leads it. One transaction: the membership row and the digest's count are written together.
 */
export async function joinOrOpenDigest(k: DigestKey, run: { id: string; data: Record<string, unknown> }, windowMs: number, maxEvents: number | null): Promise<DigestRole> {
  return await sql.begin(async (tx) => {
    const [mine] = await tx<DigestRow[]>`
      select d.* from workflow_digest_members m join workflow_digests d on d.id = m.digest_id where m.run_id = ${run.id}`;
    if (mine) return mine.leader_run_id === run.id ? { role: "leader", digest: mine } : { role: "member", digest: mine, closedNow: false };
    const data = JSON.stringify(run.data ?? {});
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const [open] = await tx<(DigestRow & { ended: boolean })[]>`
        select *, closes_at <= clock_timestamp() as ended from workflow_digests
        where tenant_id = ${k.tenantId} and environment = ${k.environment} and lineage_id = ${k.lineageId}
          and recipient = ${k.recipient} and digest_key = ${k.key} and status = 'open'
        for update`;
      if (open && (open.ended || (open.max_events !== null && open.event_count >= open.max_events))) {
        // its window is over (the leader's timer has not closed it yet): no one joins it any more
        await tx`update workflow_digests set status = 'closed', closed_at = least(clock_timestamp(), closes_at) where id = ${open.id}`;
        continue;
      }
      if (open) {
        await tx`insert into workflow_digest_members (run_id, digest_id, position, data) values (${run.id}, ${open.id}, ${open.event_count}, ${data}::text::jsonb)`;
        const full = open.max_events !== null && open.event_count + 1 >= open.max_events;
        const [digest] = await tx<DigestRow[]>`
          update workflow_digests set event_count = event_count + 1
            ${full ? tx`, status = 'closed', closed_at = clock_timestamp()` : tx``}
          where id = ${open.id} returning *`;
        return { role: "member", digest: digest!, closedNow: full };
      }
      const id = newId();
      const [digest] = await tx<DigestRow[]>`
        insert into workflow_digests (id, tenant_id, environment, lineage_id, recipient, digest_key, leader_run_id, max_events, opened_at, closes_at)
        values (${id}, ${k.tenantId}, ${k.environment}, ${k.lineageId}, ${k.recipient}, ${k.key}, ${run.id}, ${maxEvents},
                clock_timestamp(), clock_timestamp() + ${Math.max(0, Math.round(windowMs)) + " milliseconds"}::interval)
        on conflict (tenant_id, environment, lineage_id, recipient, digest_key) where status = 'open' do nothing
        returning *`;
      if (!digest) continue; // another run opened it first (and committed): join it
      await tx`insert into workflow_digest_members (run_id, digest_id, position, data) values (${run.id}, ${id}, 0, ${data}::text::jsonb)`;
      return { role: "leader", digest };
    }
    throw new Error(`run ${run.id}: no digest opened or joined after ${MAX_ROUNDS} rounds`);
  });
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
 * in arrival order. The update waits for joins holding the row, so every member is read.
 */
export async function closeDigest(id: string): Promise<ClosedDigest> {
  const [digest] = await sql<DigestRow[]>`
    update workflow_digests set status = 'closed', closed_at = coalesce(closed_at, least(clock_timestamp(), closes_at))
    where id = ${id} returning *`;
  if (!digest) throw new Error(`digest ${id} is missing`);
  const members = await sql<{ run_id: string; data: Record<string, unknown> }[]>`
    select run_id, data from workflow_digest_members where digest_id = ${id} order by position`;
  return { digest, members };
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
    if (count!.n >= limit) return false;
    await tx`insert into workflow_throttle_passes (run_id, step, tenant_id, environment, throttle_key, passed_at)
      values (${run.id}, ${run.step}, ${k.tenantId}, ${k.environment}, ${k.key}, clock_timestamp())`;
    return true;
  });
}
