-- Foundation schema: tenants, API keys, the immutable audit log, the event outbox and the
-- shared tables of subscribers, templates, channels, notifications and the in-app inbox.
-- Every table of tenant data carries tenant_id and environment.

create table tenants (
  id uuid primary key,
  name text not null,
  inbox_secret text not null,
  developer_mode boolean not null default false,
  created_at timestamptz not null default now()
);

create table api_keys (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null check (environment in ('production', 'sandbox')),
  key_type text not null check (key_type in ('secret', 'publishable')),
  name text,
  label text,
  prefix text not null,
  key_hash text not null unique,
  permissions text[] not null default array['read', 'write'],
  allowed_ips text[],
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  revoked_reason text,
  expires_at timestamptz,
  created_by_user_id uuid
);
create index api_keys_tenant on api_keys (tenant_id, environment, created_at);

create table audit_logs (
  id uuid primary key,
  tenant_id uuid not null,
  actor_id text,
  actor_type text not null check (actor_type in ('user', 'api_key', 'system')),
  action text not null,
  resource_type text not null,
  resource_id text,
  metadata jsonb not null default '{}',
  ip_address text,
  user_agent text,
  inserted_at timestamptz(6) not null default clock_timestamp()
);
create index audit_logs_tenant_time on audit_logs (tenant_id, inserted_at desc, id desc);
create index audit_logs_tenant_action on audit_logs (tenant_id, action, inserted_at desc);

-- Immutability is enforced by PostgreSQL itself, whatever role the application uses.
-- Only a full account deletion may remove rows: it sets nms.account_deletion = 'on'
-- for its own transaction.
create function audit_logs_immutable() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' and current_setting('nms.account_deletion', true) = 'on' then
    return old;
  end if;
  raise exception 'audit_logs rows are immutable (% refused)', tg_op using errcode = '42501';
end;
$$;
create trigger audit_logs_no_update before update on audit_logs
  for each row execute function audit_logs_immutable();
create trigger audit_logs_no_delete before delete on audit_logs
  for each row execute function audit_logs_immutable();
create trigger audit_logs_no_truncate before truncate on audit_logs
  for each statement execute function audit_logs_immutable();

-- Outbox of events (notification.*, workflow.*, inbox.*): written in the same transaction
-- as the change; webhook dispatch reads from here.
create table events (
  id uuid primary key,
  tenant_id uuid not null,
  environment text not null,
  type text not null,
  data jsonb not null,
  created_at timestamptz not null default now()
);
create index events_tenant_time on events (tenant_id, environment, created_at);

create table subscribers (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  external_id text not null,
  email text,
  phone text,
  name text,
  locale text,
  timezone text,
  custom_properties jsonb not null default '{}',
  consent jsonb,
  deleted_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, environment, external_id)
);

create table subscriber_preferences (
  tenant_id uuid not null,
  environment text not null,
  subscriber_id uuid not null references subscribers(id) on delete cascade,
  category text not null,
  channel text not null,
  enabled boolean not null,
  updated_at timestamptz not null default now(),
  primary key (subscriber_id, category, channel)
);

create table templates (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  slug text not null,
  name text not null,
  channel text not null,
  content text not null,
  variables text[] not null default '{}',
  variants jsonb not null default '{}',
  language text not null default 'pt_BR',
  status text not null default 'draft' check (status in ('draft', 'active')),
  metadata jsonb not null default '{}',
  provider_template_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create unique index templates_slug on templates (tenant_id, environment, slug) where deleted_at is null;

create table channels (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  channel text not null,
  provider text not null,
  credentials_enc text,
  credentials_key_id text,
  credential_keys text[] not null default '{}',
  settings jsonb not null default '{}',
  active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, environment, channel)
);

create table notifications (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  channel text not null,
  recipient text,
  subscriber_id uuid,
  template_slug text,
  category text,
  data jsonb not null default '{}',
  metadata jsonb not null default '{}',
  content jsonb,
  status text not null default 'pending',
  error jsonb,
  provider text,
  provider_message_id text,
  idempotency_key text,
  attempt_count integer not null default 0,
  next_attempt_at timestamptz,
  suppressed_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  sent_at timestamptz,
  delivered_at timestamptz,
  failed_at timestamptz,
  bounced_at timestamptz,
  opened_at timestamptz,
  clicked_at timestamptz,
  complained_at timestamptz,
  unique (tenant_id, environment, idempotency_key)
);
create index notifications_list on notifications (tenant_id, environment, created_at desc, id desc);
create index notifications_subscriber on notifications (subscriber_id);
create index notifications_pending on notifications (status, next_attempt_at) where status = 'pending';
create index notifications_provider_msg on notifications (provider_message_id) where provider_message_id is not null;

create table notification_attempts (
  id uuid primary key,
  notification_id uuid not null references notifications(id) on delete cascade,
  tenant_id uuid not null,
  attempt_number integer not null,
  status text not null check (status in ('success', 'failure')),
  provider text,
  provider_response jsonb,
  error jsonb,
  duration_ms integer,
  created_at timestamptz not null default now(),
  unique (notification_id, attempt_number)
);

create table inbox_items (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  subscriber_id uuid not null references subscribers(id) on delete cascade,
  notification_id uuid unique,
  title text,
  body text,
  data jsonb not null default '{}',
  read_at timestamptz,
  created_at timestamptz not null default now()
);
create index inbox_items_subscriber on inbox_items (subscriber_id, created_at desc, id desc);
create index inbox_items_unread on inbox_items (subscriber_id) where read_at is null;
