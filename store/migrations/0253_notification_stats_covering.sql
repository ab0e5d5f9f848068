-- Hourly series over days (timeseries with granularity=hour for 7d/30d) read thousands of rollup
-- rows; with the counters in the index they come from an index-only scan once rows are vacuumed.
create index notification_stats_hourly_series on notification_stats_hourly (tenant_id, environment, hour)
  include (channel, template, total, sent, delivered, failed, bounced, suppressed);
