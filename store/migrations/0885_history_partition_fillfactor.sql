-- Day partitions of notifications keep the room for HOT updates that the table had (0751,
-- fillfactor 70): 0860's nms_create_day_partition copies columns, defaults, checks and storage,
-- not storage parameters, so every day partition filled its pages to 100% and the sender's claim
-- (no indexed column) could no longer stay on its page. Now a new partition gets the legacy
-- partition's (or, without one, the old table's 70) fillfactor, and existing day partitions get it
-- for the pages written from now on (SHARE UPDATE EXCLUSIVE: reads and writes go on).
create or replace function nms_create_day_partition(tbl text, day date) returns text
language plpgsql as $$
declare
  part text := tbl || '_p' || to_char(day, 'YYYYMMDD');
  lo uuid := nms_uuid_v7_floor(day::timestamp at time zone 'UTC');
  hi uuid := nms_uuid_v7_floor((day + 1)::timestamp at time zone 'UTC');
  opts text[];
begin
  if to_regclass(part) is not null then return part; end if;
  execute format('create table %I (like %I including defaults including constraints including storage)', part, tbl);
  opts := nms_history_partition_options(tbl);
  if opts is not null then
    execute format('alter table %I set (%s)', part, array_to_string(opts, ', '));
  end if;
  execute format('alter table %I attach partition %I for values from (%L) to (%L)', tbl, part, lo, hi);
  return part;
end $$;

-- The storage parameters a day partition of `tbl` gets: the legacy partition's (the old table's,
-- kept by the swap), else notifications' 70% fill (room on each page for the claim's HOT update).
create or replace function nms_history_partition_options(tbl text) returns text[]
language sql stable as $$
  select coalesce(
    (select c.reloptions from pg_class c where c.oid = to_regclass(tbl || '_legacy')),
    case when tbl = 'notifications' then array['fillfactor=70'] end)
$$;

do $$
declare r record; opts text[];
begin
  for r in select parent, partition from history_partitions where day is not null loop
    opts := nms_history_partition_options(r.parent);
    if opts is not null then
      execute format('alter table %I set (%s)', r.partition, array_to_string(opts, ', '));
    end if;
  end loop;
end $$;
