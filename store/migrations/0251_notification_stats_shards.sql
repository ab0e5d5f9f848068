-- Rollup rows are split into a few shards so concurrent accept and delivery batches of one
-- (tenant, environment, hour, channel, template) do not queue on one row lock; reads sum the shards.
alter table notification_stats_hourly add column shard smallint not null default 0;
alter table notification_stats_hourly drop constraint notification_stats_hourly_pkey;
alter table notification_stats_hourly add primary key (tenant_id, environment, hour, channel, template, shard);
