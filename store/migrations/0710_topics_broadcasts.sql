-- Audiences (issue 22): topics (named groups of subscribers per tenant and environment), their
-- members, broadcasts (one trigger fanned out to a topic's members by the broadcast actor, with its
-- cursor saved after each page), the idempotency key a broadcast's runs carry, and the `critical`
-- flag and quiet-hours hold time of a notification (domain/delivery-policy/).
create table topics (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null check (environment in ('production', 'sandbox')),
  key text not null,
  name text not null,
  -- kept in step with topic_subscribers by every writer of it (add, remove, erasure)
  subscriber_count integer not null default 0,
  created_at timestamptz not null default now(),
  unique (tenant_id, environment, key)
);
create index topics_list on topics (tenant_id, environment, id desc);

-- A member; added_at decides whether a broadcast includes it (members added after the trigger are not).
create table topic_subscribers (
  topic_id uuid not null references topics(id) on delete cascade,
  subscriber_id uuid not null references subscribers(id) on delete cascade,
  added_at timestamptz not null default clock_timestamp(),
  primary key (topic_id, subscriber_id)
);
-- erasure: every topic of one subscriber
create index topic_subscribers_by_subscriber on topic_subscribers (subscriber_id);

-- One trigger to a topic. The broadcast actor pages the members in subscriber id order after
-- `cursor`, creating each page's runs and moving the cursor in one transaction.
create table broadcasts (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  -- null once the topic is deleted: the fan-out then finds no more members and completes
  topic_id uuid references topics(id) on delete set null,
  topic_key text not null,
  workflow_id uuid not null references workflows(id),
  workflow_version integer not null,
  workflow_slug text not null,
  data jsonb not null default '{}',
  status text not null default 'fanning_out' check (status in ('fanning_out', 'completed', 'cancelled')),
  recipients integer,
  runs_created integer not null default 0,
  cursor uuid,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz
);
create index broadcasts_fanning_out on broadcasts (updated_at) where status = 'fanning_out';

-- bcast:<broadcast id>:<subscriber id>: a page read twice (kill -9, Redis emptied) creates no second run
alter table workflow_runs add column idempotency_key text;
create unique index workflow_runs_idempotency on workflow_runs (tenant_id, environment, idempotency_key) where idempotency_key is not null;

-- Delivery policy: a critical notification (OTP, security alert) ignores quiet hours and caps;
-- scheduled_for is when a notification held by quiet hours is released.
alter table notifications add column critical boolean not null default false;
alter table notifications add column scheduled_for timestamptz;
