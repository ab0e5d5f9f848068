-- The list index no longer ends in `id`: with it, a generic (prepared) plan for any lookup
-- "id = $1 and tenant_id = $2 and environment = $3" chose this index over the primary key and
-- walked every entry of the tenant (about 5 ms per lookup at 120k rows, growing with the tenant),
-- which is what collapsed the sender under overload. Without `id` the primary key is the only
-- index that matches an id, and the cursor list (created_at desc, id desc) still reads this index
-- in order, ties on created_at sorted incrementally.
create index notifications_list_by_time on notifications (tenant_id, environment, created_at desc);
drop index notifications_list;
