-- The hosted preference center (issue 28, docs/preferences.md): its branding per tenant and
-- environment, and the preference source it writes.
create table if not exists preference_center_settings (
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  brand_color text not null default '#2563eb',
  updated_at timestamptz not null default now(),
  primary key (tenant_id, environment)
);

alter table subscriber_preferences drop constraint if exists subscriber_preferences_source_check;
alter table subscriber_preferences add constraint subscriber_preferences_source_check
  check (source in ('api', 'unsubscribe', 'preference_center'));
