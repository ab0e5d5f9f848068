-- Time partitioning, step 3 of 3: notifications, attempts, engagement records, events and webhook
-- deliveries become range-partitioned by day (0860's functions; docs/operations.md#partitioning).
-- Children before parents, so foreign keys between them go first. A table that
-- scripts/partition-history.ts already converted online is skipped; on a fresh or small database
-- this does the three steps at once.
do $$
declare t text;
begin
  foreach t in array array['notification_attempts', 'notification_engagements', 'webhook_deliveries', 'events', 'notifications'] loop
    perform nms_history_prepare(t);
    perform nms_history_validate(t);
    perform nms_history_swap(t);
  end loop;
end $$;
