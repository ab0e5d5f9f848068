-- Time partitioning of the history tables, step 1 of 3 (docs/operations.md#partitioning): the
-- functions every step uses, the list of history tables with their partition keys, and the
-- idempotency-key table that replaces notifications' UNIQUE (tenant_id, environment, idempotency_key),
-- which a table partitioned by id cannot keep. Short locks only; 0861 backfills, 0862 converts.

-- The smallest UUID v7 of a moment: 48 bits of Unix milliseconds, then zeros. Every v7 id made at or
-- after `ts` sorts at or above it, so day boundaries of a v7 key are these values.
create or replace function nms_uuid_v7_floor(ts timestamptz) returns uuid
language sql immutable strict parallel safe as $$
  select (lpad(to_hex(floor(extract(epoch from ts) * 1000)::bigint), 12, '0') || '00000000000000000000')::uuid
$$;

-- A random UUID v7 of a given moment (history filled in SQL: tests, bench:history).
create or replace function nms_uuid_v7_at(ts timestamptz) returns uuid
language sql volatile strict parallel safe as $$
  select (lpad(to_hex(floor(extract(epoch from ts) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3)
          || '8' || substr(md5(random()::text), 1, 15))::uuid
$$;

-- The moment a UUID v7 was made (its first 48 bits); meaningless for other versions.
create or replace function nms_uuid_v7_time(id uuid) returns timestamptz
language sql immutable strict parallel safe as $$
  select to_timestamp(('x' || lpad(substr(replace(id::text, '-', ''), 1, 12), 16, '0'))::bit(64)::bigint / 1000.0)
$$;

-- The history tables and the column each is range-partitioned on. Children sit in their parent's
-- day: attempts and engagement records by notification_id, webhook deliveries by event_id, so
-- one day of history leaves as one partition of each table and the child UNIQUE keys
-- ((notification_id, attempt_number), (webhook_id, event_id, attempt)) keep their meaning.
create table if not exists history_partitioned_tables (
  table_name text primary key,
  key_column text not null,
  -- the (exclusive) upper bound of the legacy partition: the old table, attached as is
  legacy_bound uuid,
  converted_at timestamptz
);
insert into history_partitioned_tables (table_name, key_column) values
  ('notifications', 'id'),
  ('notification_attempts', 'notification_id'),
  ('notification_engagements', 'notification_id'),
  ('events', 'id'),
  ('webhook_deliveries', 'event_id')
on conflict (table_name) do nothing;

-- Idempotency keys of notifications, one row per key, outside the partitions so that a key stays
-- unique across every day. The accept INSERT claims the key here first (store/notifications.ts);
-- the row leaves with its notification (retention, partition drops, offboarding by tenant_id).
create table if not exists notification_idempotency_keys (
  tenant_id uuid not null,
  environment text not null,
  idempotency_key text not null,
  notification_id uuid not null,
  primary key (tenant_id, environment, idempotency_key)
);
create index if not exists notification_idempotency_keys_notification on notification_idempotency_keys (notification_id);

-- While notifications is still the old table (and later on its legacy partition only), rows
-- written by processes that do not claim keys yet get their key recorded too.
create or replace function nms_record_idempotency_key() returns trigger language plpgsql as $$
begin
  if new.idempotency_key is not null then
    insert into notification_idempotency_keys (tenant_id, environment, idempotency_key, notification_id)
    values (new.tenant_id, new.environment, new.idempotency_key, new.id)
    on conflict do nothing;
  end if;
  return null;
end $$;
do $$ begin
  if not exists (select 1 from pg_trigger where tgname = 'notifications_record_idempotency_key') then
    create trigger notifications_record_idempotency_key after insert on notifications
      for each row execute function nms_record_idempotency_key();
  end if;
end $$;

-- Creates the partition of `tbl` for one UTC day unless it exists: a plain table attached with
-- ATTACH PARTITION (SHARE UPDATE EXCLUSIVE on the parent: reads and writes go on), empty, so the
-- attach scans nothing but the default partition. Returns the partition's name.
create or replace function nms_create_day_partition(tbl text, day date) returns text
language plpgsql as $$
declare
  part text := tbl || '_p' || to_char(day, 'YYYYMMDD');
  lo uuid := nms_uuid_v7_floor(day::timestamp at time zone 'UTC');
  hi uuid := nms_uuid_v7_floor((day + 1)::timestamp at time zone 'UTC');
begin
  if to_regclass(part) is not null then return part; end if;
  execute format('create table %I (like %I including defaults including constraints including storage)', part, tbl);
  execute format('alter table %I attach partition %I for values from (%L) to (%L)', tbl, part, lo, hi);
  return part;
end $$;

-- The day partitions of the history tables: name, parent, day, bounds (the legacy and default
-- partitions have no day).
create or replace view history_partitions as
select h.table_name as parent, c.relname as partition,
       case when c.relname ~ '_p\d{8}$' then to_date(right(c.relname, 8), 'YYYYMMDD') end as day,
       pg_get_expr(c.relpartbound, c.oid) as bounds
from history_partitioned_tables h
join pg_inherits i on i.inhparent = to_regclass(h.table_name)
join pg_class c on c.oid = i.inhrelid;

-- Online conversion, step A: the bound check on the old table, NOT VALID (a moment's lock, no scan).
-- The bound is the start of the UTC day after tomorrow: every id written until then is below it.
create or replace function nms_history_prepare(tbl text) returns uuid language plpgsql as $$
declare
  h history_partitioned_tables;
  bound uuid;
begin
  select * into h from history_partitioned_tables where table_name = tbl;
  if h.converted_at is not null then return h.legacy_bound; end if;
  bound := coalesce(h.legacy_bound, nms_uuid_v7_floor(((current_timestamp at time zone 'UTC')::date + 2)::timestamp at time zone 'UTC'));
  if not exists (select 1 from pg_constraint where conrelid = to_regclass(tbl) and conname = tbl || '_legacy_bound') then
    execute format('alter table %I add constraint %I check (%I < %L) not valid', tbl, tbl || '_legacy_bound', h.key_column, bound);
  end if;
  update history_partitioned_tables set legacy_bound = bound where table_name = tbl;
  return bound;
end $$;

-- Step B: VALIDATE the check (SHARE UPDATE EXCLUSIVE: a scan while reads and writes go on), so the
-- attach in step C trusts it instead of scanning under its lock.
create or replace function nms_history_validate(tbl text) returns void language plpgsql as $$
begin
  if (select converted_at from history_partitioned_tables where table_name = tbl) is not null then return; end if;
  execute format('alter table %I validate constraint %I', tbl, tbl || '_legacy_bound');
end $$;

-- Step C, one short transaction: the old table becomes <tbl>_legacy and the first partition of a new
-- partitioned <tbl> built from the old one's state at this moment: columns, defaults, checks,
-- foreign keys to other tables, triggers, and every index whose uniqueness survives partitioning
-- (a unique index without the key stays on the legacy partition only; notifications' idempotency
-- key is kept by notification_idempotency_keys instead). The legacy table's own indexes are reused
-- by the attach, so nothing is built or scanned. Foreign keys between history tables are dropped:
-- a referenced partition could only be detached after a scan of every referencing partition
-- (measured 9.5 s for 2 million rows under an ACCESS EXCLUSIVE lock), and children leave with their
-- parent's day anyway (the retention job deletes them explicitly).
create or replace function nms_history_swap(tbl text) returns void language plpgsql as $$
declare
  h history_partitioned_tables;
  legacy text := tbl || '_legacy';
  r record;
  keyatt smallint;
  def text;
  d date;
begin
  select * into h from history_partitioned_tables where table_name = tbl;
  if h.converted_at is not null then return; end if;
  if h.legacy_bound is null then raise exception 'nms_history_swap(%): run nms_history_prepare first', tbl; end if;
  -- foreign keys between history tables (either direction)
  for r in select k.conname, k.conrelid::regclass::text as rel from pg_constraint k
           where k.contype = 'f' and (k.conrelid = to_regclass(tbl) or k.confrelid = to_regclass(tbl))
             and k.conrelid::regclass::text in (select table_name from history_partitioned_tables)
             and k.confrelid::regclass::text in (select table_name from history_partitioned_tables) loop
    execute format('alter table %I drop constraint %I', r.rel, r.conname);
  end loop;

  execute format('alter table %I rename to %I', tbl, legacy);
  execute format('create table %I (like %I including defaults including constraints including storage including comments) partition by range (%I)',
                 tbl, legacy, h.key_column);
  execute format('alter table %I drop constraint %I', tbl, tbl || '_legacy_bound');
  keyatt := (select attnum from pg_attribute where attrelid = to_regclass(legacy) and attname = h.key_column);

  -- indexes: constraint-backed ones as constraints (ON CONFLICT and foreign keys name them), others as indexes
  for r in select i.indexrelid, ic.relname as idxname, i.indisunique, i.indisprimary, k.conname, k.contype
           from pg_index i join pg_class ic on ic.oid = i.indexrelid
           left join pg_constraint k on k.conindid = i.indexrelid and k.conrelid = i.indrelid
           where i.indrelid = to_regclass(legacy) order by ic.relname loop
    if r.indisunique and not (keyatt = any (string_to_array((select indkey::text from pg_index where indexrelid = r.indexrelid), ' ')::smallint[])) then
      raise notice 'nms_history_swap(%): % stays on % only (a unique key without %)', tbl, r.idxname, legacy, h.key_column;
      continue;
    end if;
    if r.conname is not null then
      def := pg_get_constraintdef((select oid from pg_constraint where conindid = r.indexrelid and conrelid = to_regclass(legacy)));
      execute format('alter table %I rename constraint %I to %I', legacy, r.conname, left(r.conname, 56) || '_legacy');
      execute format('alter table %I add constraint %I %s', tbl, r.conname, def);
    else
      -- "CREATE [UNIQUE] INDEX name ON public.legacy USING ..." -> the same on the (empty) parent
      def := regexp_replace(pg_get_indexdef(r.indexrelid), ' ON (\S+\.)?' || legacy || ' ', ' ON ' || quote_ident(tbl) || ' ');
      execute format('alter index %I rename to %I', r.idxname, left(r.idxname, 56) || '_legacy');
      execute def;
    end if;
  end loop;

  -- foreign keys to other tables (tenants): the legacy table's equal constraint is reused by the attach
  for r in select k.conname, pg_get_constraintdef(k.oid) as def from pg_constraint k
           where k.conrelid = to_regclass(legacy) and k.contype = 'f' loop
    execute format('alter table %I add constraint %I %s', tbl, r.conname, r.def);
  end loop;

  -- triggers move to the parent (a transition-table trigger may not sit on a partition), except the
  -- key recorder, which belongs to the legacy rows only
  for r in select t.tgname, pg_get_triggerdef(t.oid) as def from pg_trigger t
           where t.tgrelid = to_regclass(legacy) and not t.tgisinternal and t.tgname <> 'notifications_record_idempotency_key' loop
    execute format('drop trigger %I on %I', r.tgname, legacy);
    execute regexp_replace(r.def, ' ON (\S+\.)?' || legacy || ' ', ' ON ' || quote_ident(tbl) || ' ');
  end loop;

  -- the old table below the bound (its validated check spares the scan), a default partition for
  -- keys outside every day (not UUID v7; kept empty), and the days from the bound on
  execute format('alter table %I attach partition %I for values from (minvalue) to (%L)', tbl, legacy, h.legacy_bound);
  execute format('create table %I partition of %I default', tbl || '_default', tbl);
  -- two days here (the lock is held meanwhile); the partition job adds the rest ahead
  d := (nms_uuid_v7_time(h.legacy_bound) at time zone 'UTC')::date;
  for i in 0..1 loop
    perform nms_create_day_partition(tbl, d + i);
  end loop;
  -- every parent index is valid: each partition has its twin (the legacy table's own, reused: the test checks none was built)
  for r in select ic.relname from pg_index i join pg_class ic on ic.oid = i.indexrelid
           where i.indrelid = to_regclass(tbl) and not i.indisvalid loop
    raise exception 'nms_history_swap(%): index % is not valid after the attach', tbl, r.relname;
  end loop;
  update history_partitioned_tables set converted_at = now() where table_name = tbl;
end $$;
