-- Backup providers of a channel (issue 23): up to three entries tried in order after the primary
-- provider, each {id, provider, credentials_enc, credentials_key_id, credential_keys, settings}.
alter table channels add column if not exists failover jsonb not null default '[]'::jsonb;
