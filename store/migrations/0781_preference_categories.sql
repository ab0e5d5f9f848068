-- Preference categories as data (issue 28, docs/preferences.md): per tenant and environment, the
-- channels a category is on for a subscriber who chose nothing, and whether it can be turned off.
create table if not exists preference_categories (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  key text not null,
  name text not null,
  description text,
  default_enabled_channels text[] not null,
  required boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, environment, key)
);
