-- A subscriber's workflow runs, newest first (GET /v1/workflow-runs?subscriber=, the dashboard's
-- subscriber page). Runs to a literal address have no subscriber and stay out of the index.
create index workflow_runs_by_subscriber on workflow_runs (subscriber_id, id desc) where subscriber_id is not null;
