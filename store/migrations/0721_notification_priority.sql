-- Priority lanes (issue 23, docs/routing.md): high (one-time codes, security), normal (the default) or
-- low (digests, marketing, broadcasts); the channel sender reads each lane from streams of its own.
alter table notifications add column if not exists priority text not null default 'normal';
alter table notifications drop constraint if exists notifications_priority_check;
alter table notifications add constraint notifications_priority_check check (priority in ('high', 'normal', 'low'));
