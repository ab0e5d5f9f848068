-- A tenant's delivery policy per environment (GET/PUT /v1/settings/delivery): the timezone that
-- local-time waits and quiet hours fall back to when a subscriber has none, quiet hours and
-- frequency caps across every workflow. No row means the defaults: UTC, no quiet hours, no caps.
create table delivery_settings (
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null check (environment in ('production', 'sandbox')),
  timezone text not null default 'UTC',
  quiet_hours jsonb,
  frequency_caps jsonb not null default '[]'::jsonb,
  updated_at timestamptz not null default now(),
  primary key (tenant_id, environment)
);
