-- Room on each page of notifications for the claim's new row version: the claim (attempt_count,
-- provider, updated_at, claimed_at, claimed_by) touches no indexed column, so with free space on
-- its page it is a HOT update and writes nothing into the table's indexes (docs/operations.md,
-- cost model). Applies to pages written from now on; existing pages are not rewritten.
alter table notifications set (fillfactor = 70);
