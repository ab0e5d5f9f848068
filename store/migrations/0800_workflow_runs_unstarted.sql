-- Runs never written since their trigger (rev 0), by version and recipient: a digest's leader whose
-- window ended looks here for runs of its window still queued, and waits for them (docs/workflows.md).
create index workflow_runs_unstarted on workflow_runs (workflow_id, recipient, started_at) where rev = 0;
