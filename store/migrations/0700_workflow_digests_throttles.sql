-- Workflow digest and throttle steps (docs/workflows.md): PostgreSQL is the truth of which run leads
-- a digest, which runs joined it, and which runs passed a throttle; Redis only holds the window timer.

-- One digest per (scope, workflow lineage, recipient, rendered key) window. At most one is open at a
-- time for a key (the partial unique index): concurrent openers race on it and the losers join.
create table workflow_digests (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  lineage_id uuid not null,
  recipient text not null,
  digest_key text not null,
  -- the run that opened it and sends it; its version's later steps render the digest
  leader_run_id uuid not null unique,
  status text not null default 'open' check (status in ('open', 'closed')),
  max_events int,
  event_count int not null default 1,
  opened_at timestamptz not null default now(),
  closes_at timestamptz not null,
  closed_at timestamptz
);
create unique index workflow_digests_one_open on workflow_digests (tenant_id, environment, lineage_id, recipient, digest_key) where status = 'open';

-- The runs of a digest in arrival order (the leader first). A run is in at most one digest.
create table workflow_digest_members (
  run_id uuid primary key,
  digest_id uuid not null references workflow_digests(id) on delete cascade,
  position int not null,
  data jsonb not null,
  joined_at timestamptz not null default now(),
  unique (digest_id, position)
);

-- Runs that passed a throttle step; counted per key over the rolling window under an advisory lock.
create table workflow_throttle_passes (
  run_id uuid not null,
  step int not null,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  throttle_key text not null,
  passed_at timestamptz not null default now(),
  primary key (run_id, step)
);
create index workflow_throttle_passes_window on workflow_throttle_passes (tenant_id, environment, throttle_key, passed_at);
