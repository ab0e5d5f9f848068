-- The index of runs never written since their trigger (0800) keyed by md5(recipient) instead of the
-- recipient: a recipient may be 8,192 characters, past the btree row limit, and every trigger failed.
drop index if exists workflow_runs_unstarted;
create index workflow_runs_unstarted on workflow_runs (workflow_id, md5(recipient), started_at) where rev = 0;
