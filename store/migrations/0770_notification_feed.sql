-- The activity feed (GET /v1/notifications filters, issue 27): one index per way of searching, each
-- ending in created_at desc so a filtered page is read in order and stops at `limit` (the plans are
-- in docs/notifications.md and pinned by test/integration/notification-feed-plans.test.ts).
-- Kept few and partial where a filter selects a minority, because every index costs the accept
-- path's insert and each status move (status is indexed, so those updates are never HOT).

-- by recipient address: md5 keeps the key short, since a push recipient (a Web Push subscription
-- as JSON) may be longer than a btree entry allows; the query rechecks recipient itself
create index notifications_feed_recipient on notifications (tenant_id, environment, md5(recipient), created_at desc);

-- by template slug (raw-content sends have none)
create index notifications_feed_template on notifications (tenant_id, environment, template_slug, created_at desc)
  where template_slug is not null;

-- by subscriber, newest first; it replaces the foundation's (subscriber_id), which erasure and the
-- subscriber's page use with the same leading column
create index notifications_feed_subscriber on notifications (subscriber_id, created_at desc) where subscriber_id is not null;
drop index if exists notifications_subscriber;

-- by workflow: every workflow step's notification has the key wfrun:<run_id>:step:<i>[:ch:<channel>],
-- so the run id is part 2 of it; the feed finds the runs of a workflow, then their notifications
create index notifications_feed_workflow_run on notifications (tenant_id, environment, (split_part(idempotency_key, ':', 2)))
  where idempotency_key like 'wfrun:%';

-- by an unhappy status: the statuses people search for are a small share of the rows, so the
-- index stays small and costs a write only when a notification fails, bounces or is suppressed;
-- pending, sent and delivered are read from the time index (notifications_list_by_time) with a filter
create index notifications_feed_unhappy on notifications (tenant_id, environment, status, created_at desc)
  where status in ('failed', 'bounced', 'suppressed');
