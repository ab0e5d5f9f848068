-- Notifications: hourly rollup counters for analytics (kept by the accept path and the channel
-- sender in the same transaction as the change they count).

-- One row per (tenant, environment, hour, channel, template); template '' = raw content.
-- Counters are cohort counters: a notification is counted in the hour it was created, so
-- delivered/sent within a period never exceeds total.
create table notification_stats_hourly (
  tenant_id uuid not null,
  environment text not null,
  hour timestamptz not null,
  channel text not null,
  template text not null default '',
  total bigint not null default 0,
  sent bigint not null default 0,
  delivered bigint not null default 0,
  failed bigint not null default 0,
  bounced bigint not null default 0,
  suppressed bigint not null default 0,
  primary key (tenant_id, environment, hour, channel, template)
);

-- The foundation's indexes already serve delivery: notifications_pending (reconciler),
-- notifications_provider_msg (inbound webhooks), unique (notification_id, attempt_number).

