-- Time partitioning, step 2 of 3: every notification's idempotency key recorded in
-- notification_idempotency_keys (0860's trigger records new ones). No lock beyond the rows read;
-- on a large table run scripts/partition-history.ts first, which does this in batches.
insert into notification_idempotency_keys (tenant_id, environment, idempotency_key, notification_id)
select tenant_id, environment, idempotency_key, id from notifications where idempotency_key is not null
on conflict do nothing;
