-- The `locale` of a workflow trigger (issue 28, docs/localization.md): every send step of the run
-- renders in it when the recipient subscriber has no locale of their own. A topic trigger's
-- broadcast keeps it for the runs it fans out. Nullable without a default: no table rewrite.
alter table workflow_runs add column if not exists locale text;
alter table broadcasts add column if not exists locale text;
