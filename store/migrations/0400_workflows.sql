-- Workflows (issue 10): immutable versions of a definition, durable runs with their next due
-- time, and the run a notification belongs to (so its outcome can wake the run).

-- One row per version. A PUT inserts version + 1 and deactivates the previous row in one
-- transaction; DELETE only deactivates. lineage_id is the first version's id: it ties the
-- versions of one workflow together, since the slug may change between versions.
create table workflows (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  lineage_id uuid not null,
  slug text not null,
  name text not null,
  steps jsonb not null,
  version integer not null,
  active boolean not null default true,
  inserted_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (lineage_id, version)
);
-- a slug names one active workflow per scope (trigger looks it up here)
create unique index workflows_active_slug on workflows (tenant_id, environment, slug) where active;
create index workflows_list on workflows (tenant_id, environment, id desc);

-- A run keeps the version it was triggered with (workflow_id). PostgreSQL holds its whole
-- state: current_step, step_results, the wait in progress (step_state, internal) and when the
-- run is due to resume (next_due_at); rev guards every write, so a job that runs twice (at
-- least once delivery) cannot record a step twice.
create table workflow_runs (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  workflow_id uuid not null references workflows(id),
  workflow_version integer not null,
  workflow_slug text not null,
  recipient text not null,
  subscriber_id uuid,
  data jsonb not null default '{}',
  status text not null default 'running' check (status in ('running', 'completed', 'failed', 'cancelled')),
  current_step integer not null default 0,
  step_results jsonb not null default '[]',
  step_state jsonb,
  next_due_at timestamptz,
  rev integer not null default 0,
  started_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz
);
create index workflow_runs_list on workflow_runs (tenant_id, environment, id desc);
create index workflow_runs_by_workflow on workflow_runs (tenant_id, environment, workflow_id, id desc);
-- the reconciler's scan: running runs by when they are due or were last touched, whichever is
-- later (a requeue touches updated_at, so an overdue run is not requeued again at once)
create index workflow_runs_running on workflow_runs ((greatest(next_due_at, updated_at))) where status = 'running';

-- The run waiting on a notification's outcome: set on the notifications of a workflow step whose
-- outcome a later step looks at (a send followed by a fallback, every fallback channel); the
-- channel sender and provider callbacks wake that run when their status moves
-- (domain/workflows/wakeups.ts). Every step notification, waited on or not, has the idempotency key
-- wfrun:<run_id>:step:<index>[:ch:<channel>]. No foreign key: a key share lock on the run from every
-- notification insert would only slow the run's own writes down.
alter table notifications add column workflow_run_id uuid;
create index notifications_workflow_run on notifications (workflow_run_id) where workflow_run_id is not null;
