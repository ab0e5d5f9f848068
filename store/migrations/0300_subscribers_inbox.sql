-- Subscribers and inbox (issue 5): case-insensitive search indexes, the preference source
-- (api or unsubscribe link), hashed identifiers of erased subscribers, and inbox event replay.

-- Search over email, name and external_id is `ILIKE '%term%'`; trigram GIN indexes serve it.
create extension if not exists pg_trgm;
create index subscribers_search_email on subscribers using gin (email gin_trgm_ops);
create index subscribers_search_name on subscribers using gin (name gin_trgm_ops);
create index subscribers_search_external_id on subscribers using gin (external_id gin_trgm_ops);
create index subscribers_list on subscribers (tenant_id, environment, created_at desc, id desc) where deleted_at is null;
create index subscribers_email on subscribers (tenant_id, environment, lower(email)) where email is not null;
create index subscribers_phone on subscribers (tenant_id, environment, phone) where phone is not null;

-- Why a preference is off: the API (PUT preferences) or the unsubscribe link. The channel
-- sender reports `unsubscribed` rather than `preference_disabled` for the latter.
alter table subscriber_preferences
  add column source text not null default 'api' check (source in ('api', 'unsubscribe'));
create index subscriber_preferences_off on subscriber_preferences (subscriber_id, channel) where not enabled;

-- Erasure (LGPD): the subscriber's id, external_id and former email/phone, each as
-- SHA-256 over "<tenant>:<environment>:<normalized identifier>", so later sends to any of
-- them are suppressed without keeping the personal data itself.
create table subscriber_erasures (
  tenant_id uuid not null,
  environment text not null,
  identifier_hash text not null,
  kind text not null check (kind in ('id', 'external_id', 'email', 'phone')),
  subscriber_id uuid not null,
  erased_at timestamptz not null default now(),
  primary key (tenant_id, environment, identifier_hash)
);

-- Last-Event-ID resume of the inbox stream replays this subscriber's inbox.* events.
create index events_inbox_subscriber on events ((data ->> 'subscriber_id'), created_at, id)
  where type in ('inbox.notification.received', 'inbox.notification.read');
