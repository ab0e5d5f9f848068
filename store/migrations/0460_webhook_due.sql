-- Durable markers of webhook attempts whose message lives only in Redis (docs/webhooks.md
-- "Durability"), so the repair scan (domain/webhooks/repair.ts) can re-enqueue what Redis lost.
--
-- One row per attempt owed to a webhook for an event: attempt 1 once the relay put its message on
-- the dispatcher's stream (the relay moves outbox rows here in the transaction that deletes them),
-- a manual attempt (retry, replay) likewise, and attempt n+1 once attempt n failed with a retry (the
-- dispatcher writes it with attempt n's record). The transaction that records an attempt deletes its
-- row. So the table holds only work in flight: a separate table, not outbox rows kept and marked,
-- so the outbox stays an insert-and-delete queue the relay reads from its head, without walking
-- rows already relayed, and the fan-out trigger on the emitters' path is unchanged.
-- No foreign keys, like webhook_outbox: a webhook deleted meanwhile must not fail the relay's or
-- the dispatcher's batch; the repair drops rows whose webhook or event is gone.
create table webhook_due (
  webhook_id uuid not null,
  event_id uuid not null,
  attempt integer not null check (attempt >= 1),
  -- a manual attempt: its pending delivery record
  delivery_id uuid,
  -- when the attempt is owed: the relay's time (attempt 1, manual), next_retry_at (a retry)
  due_at timestamptz not null,
  -- the latest time its message can have entered the stream (the relay's or the repair's XADD);
  -- null while a runtime timer carries it, until the repair finds that timer gone
  enqueued_at timestamptz,
  -- how often the repair re-enqueued it: each time doubles the wait before the next
  repairs integer not null default 0,
  primary key (webhook_id, event_id, attempt)
) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);

-- the repair reads the oldest overdue rows first
create index webhook_due_scan on webhook_due (due_at);
