-- Delivery receipts and engagement (issue 13): rollup counters for opens, clicks and complaints,
-- the engagement record (each open and click, with the address that made it), the suppression list.

-- Cohort counters like the others: a notification counts once, in the hour it was created, the
-- first time it is opened, clicked or reported as spam.
alter table notification_stats_hourly
  add column opened bigint not null default 0,
  add column clicked bigint not null default 0,
  add column complained bigint not null default 0;
alter table notification_stats_daily
  add column opened bigint not null default 0,
  add column clicked bigint not null default 0,
  add column complained bigint not null default 0;
-- the hourly series stays an index-only scan with the new counters in the index
drop index notification_stats_hourly_series;
create index notification_stats_hourly_series on notification_stats_hourly (tenant_id, environment, hour)
  include (channel, template, total, sent, delivered, failed, bounced, suppressed, opened, clicked, complained);

-- One row per recorded open or click: the notification keeps only the first (opened_at, clicked_at).
-- ip and user_agent are personal data: erasing the subscriber deletes these rows (domain/subscribers/erasure.ts).
-- event_key dedupes a provider's redelivered event (SendGrid's sg_event_id); our own tracking
-- routes leave it null, so each click through them is a new row.
create table notification_engagements (
  id uuid primary key,
  tenant_id uuid not null,
  environment text not null,
  notification_id uuid not null references notifications(id) on delete cascade,
  kind text not null check (kind in ('open', 'click')),
  source text not null,
  link_index integer,
  url text,
  ip text,
  user_agent text,
  event_key text,
  created_at timestamptz not null default now()
);
create index notification_engagements_notification on notification_engagements (notification_id, created_at);
create unique index notification_engagements_event_key on notification_engagements (notification_id, event_key)
  where event_key is not null;

-- The suppression list of a tenant's environment: an address that hard-bounced, complained, or (push)
-- is no longer registered. Later sends to it end `suppressed` without a provider call. `address` is
-- normalised: email lower-cased, an FCM token as given, a Web Push subscription by its endpoint URL.
create table suppressions (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  address text not null,
  channel text not null,
  reason text not null check (reason in ('bounced', 'complained', 'unregistered')),
  notification_id uuid,
  created_at timestamptz not null default now(),
  unique (tenant_id, environment, address)
);
-- GET /v1/suppressions pages newest first by id (UUID v7)
create index suppressions_list on suppressions (tenant_id, environment, id desc);
-- erasure finds the rows a subscriber's notifications created
create index suppressions_notification on suppressions (notification_id) where notification_id is not null;
