-- The reconciler's fold of the rollup delta rows (store/analytics.ts compactCounters, every 15 s) finds them
-- by `shard <> 0`, which no index served: each pass read the whole hourly rollup, one row per tenant,
-- environment, hour, channel and template of the retention window (1.4 million rows and 26,000 pages at
-- 1,000 tenants and 60 days: ~100 ms of CPU every 15 s, growing with tenants and history while the deltas it
-- folds stay a few hundred; issue 26). A partial index holds only the delta rows, in the order the fold takes them.
create index notification_stats_hourly_deltas on notification_stats_hourly (tenant_id, environment, hour, channel, template, shard)
  where shard <> 0;
create index notification_stats_daily_deltas on notification_stats_daily (tenant_id, environment, day, channel, template, shard)
  where shard <> 0;
