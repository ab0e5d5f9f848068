-- Outbound webhooks (SPEC "Webhooks", DESIGN.md 6): endpoints, their delivery attempts, and the
-- fan-out that turns each committed event into one outbox row per subscribed endpoint.

create table webhooks (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null check (environment in ('production', 'sandbox')),
  url text not null,
  events text[] not null,
  active boolean not null default true,
  description text,
  -- AES-256-GCM (store/cipher.ts) bound to the webhook id: the secret must be recoverable to sign
  secret_enc text not null,
  -- first failure since the last success; a failure when this is older than the auto-disable
  -- window deactivates the webhook (disabled_reason, disabled_at)
  failing_since timestamptz,
  disabled_reason text,
  disabled_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhooks_tenant on webhooks (tenant_id, environment, created_at);
-- the fan-out trigger's only lookup
create index webhooks_fanout on webhooks (tenant_id, environment) where active;

-- One row per attempt (DESIGN.md 6 fields). No foreign key to webhooks: a webhook deleted while
-- an attempt is being recorded must not fail the batch that records it (its rows are deleted
-- with the webhook; a late straggler is never listed).
create table webhook_deliveries (
  id uuid primary key,
  webhook_id uuid not null,
  tenant_id uuid not null references tenants(id) on delete cascade,
  event_id uuid not null,
  event_type text not null,
  attempt integer not null check (attempt >= 1),
  status text not null check (status in ('success', 'failed', 'pending')),
  response_status integer,
  response_body text,
  duration_ms integer,
  error jsonb,
  next_retry_at timestamptz,
  -- auto: SPEC's schedule; manual: the retry and replay endpoints; test: the test endpoint
  kind text not null default 'auto' check (kind in ('auto', 'manual', 'test')),
  created_at timestamptz not null default now(),
  unique (webhook_id, event_id, attempt)
);
create index webhook_deliveries_list on webhook_deliveries (webhook_id, id desc);

-- Work for the relay (domain/webhooks/relay.ts): one row per (event, subscribed active webhook),
-- written by the trigger below in the event's own transaction, deleted once its message is on
-- the dispatcher's stream. Rows exist only once committed, so a reader never skips a late commit.
-- The retry and replay routes add rows with the id of the pending delivery they recorded.
create table webhook_outbox (
  id bigint generated always as identity primary key,
  webhook_id uuid not null,
  event_id uuid not null,
  delivery_id uuid
) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);

-- One statement-level trigger per INSERT into events (a batch of 200 events costs one join of
-- the batch with the active webhooks, nothing per row): most tenants have no webhook, and their
-- events then cost the hot path one empty join. notification.test is never fanned out: only the
-- test endpoint sends it, to one webhook.
create function webhook_fanout() returns trigger language plpgsql as $$
begin
  insert into webhook_outbox (webhook_id, event_id)
  select w.id, n.id
  from new_events n
  join webhooks w on w.tenant_id = n.tenant_id and w.environment = n.environment and w.active
  where n.type = any (w.events) and n.type <> 'notification.test';
  return null;
end;
$$;
create trigger events_webhook_fanout after insert on events
  referencing new table as new_events
  for each statement execute function webhook_fanout();
