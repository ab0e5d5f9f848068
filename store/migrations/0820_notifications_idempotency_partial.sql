-- Cost per notification (docs/operations.md, cost model): the idempotency key's uniqueness as a
-- partial index. Most notifications have no key (only workflow steps and keyed sends do), and a
-- btree indexes NULLs: every insert and every non-HOT status move wrote an entry that no lookup can
-- use (NULLs never conflict). Same rule, same `on conflict do nothing`; lookups say `idempotency_key = $1`.
create unique index if not exists notifications_idempotency on notifications (tenant_id, environment, idempotency_key)
  where idempotency_key is not null;
alter table notifications drop constraint if exists notifications_tenant_id_environment_idempotency_key_key;
