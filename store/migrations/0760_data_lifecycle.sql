-- Data lifecycle (docs/operations.md#retention): each tenant's retention windows, the longest window a
-- plan allows, the progress of tenant offboardings, and the indexes the retention sweep reads by age.

-- No row = the defaults (30 days of notifications and webhook deliveries, a year of inbox items).
create table retention_settings (
  tenant_id uuid primary key references tenants(id) on delete cascade,
  notifications_days integer not null default 30 check (notifications_days between 1 and 3650),
  inbox_days integer not null default 365 check (inbox_days between 1 and 3650),
  webhook_deliveries_days integer not null default 30 check (webhook_deliveries_days between 1 and 3650),
  updated_at timestamptz not null default now()
);

-- The longest window any of a tenant's three settings may have on this plan; null = unlimited.
alter table plans add column retention_days integer check (retention_days >= 1);

-- DELETE /api/internal/tenants/:id: one row per offboarding, kept after the tenant row is gone (no
-- foreign key), so GET .../offboarding still answers. current_table and rows_deleted move with every
-- batch; a running row whose updated_at stops moving is resumed by the retention job.
create table tenant_offboardings (
  tenant_id uuid primary key,
  tenant_name text not null,
  status text not null check (status in ('running', 'completed')),
  current_table text,
  tables_done text[] not null default '{}',
  rows_deleted bigint not null default 0,
  requested_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz
);
create index tenant_offboardings_running on tenant_offboardings (updated_at) where status = 'running';

-- The retention sweep's scans (notifications and events already have (tenant_id, environment, created_at)).
create index inbox_items_retention on inbox_items (tenant_id, created_at);
create index webhook_deliveries_retention on webhook_deliveries (tenant_id, created_at);
create index workflow_runs_retention on workflow_runs (tenant_id, completed_at) where status <> 'running';
