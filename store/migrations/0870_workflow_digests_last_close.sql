-- The newest close of a (scope, lineage, recipient, key)'s digests: a run that reached the digest step
-- inside a window already closed (its trigger committed after the leader's close) opens the next
-- digest no earlier than that close, so two windows of one key never overlap (store/workflow-digests.ts).
create index workflow_digests_closes on workflow_digests (tenant_id, environment, lineage_id, recipient, digest_key, closed_at) where status = 'closed';
