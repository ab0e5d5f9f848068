-- The analytics reads over days (overview, channels, templates and the day series of 7d/30d) read the
-- period's daily rollup rows: a 30-day overview reads ~30 rows of a tenant, each on its own heap page of
-- a table every tenant writes into, so a filled database served it from ~45 pages that nothing else keeps
-- warm (issue 26: the read mix slower on a filled database). With the counters in the index the same rows
-- are next to each other in one or two leaf pages, read by an index-only scan once the day is vacuumed
-- (the hourly rollup has had the same index since 0253).
create index notification_stats_daily_series on notification_stats_daily (tenant_id, environment, day)
  include (channel, template, total, sent, delivered, failed, bounced, suppressed, opened, clicked, complained);
