-- Daily rollups beside the hourly ones, written by the same statement: periods of days (7d, 30d)
-- read about 24x fewer rows (whole days from here, the partial first day from the hourly table).
create table notification_stats_daily (
  tenant_id uuid not null,
  environment text not null,
  day timestamptz not null,
  channel text not null,
  template text not null default '',
  shard smallint not null default 0,
  total bigint not null default 0,
  sent bigint not null default 0,
  delivered bigint not null default 0,
  failed bigint not null default 0,
  bounced bigint not null default 0,
  suppressed bigint not null default 0,
  primary key (tenant_id, environment, day, channel, template, shard)
);

-- Days already counted in the hourly table (none outside tests and benchmarks yet) are copied once.
insert into notification_stats_daily (tenant_id, environment, day, channel, template, shard, total, sent, delivered, failed, bounced, suppressed)
select tenant_id, environment, date_trunc('day', hour at time zone 'UTC') at time zone 'UTC', channel, template, 0,
  sum(total), sum(sent), sum(delivered), sum(failed), sum(bounced), sum(suppressed)
from notification_stats_hourly group by 1, 2, 3, 4, 5;
