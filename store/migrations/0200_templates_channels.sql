-- Indexes for the templates and channels APIs (range 0200-0249); the tables come from 0001.
-- Template lists page by id (UUID v7, creation order) within a tenant's environment.
create index if not exists templates_list on templates (tenant_id, environment, id desc) where deleted_at is null;
-- The inbound /webhooks/whatsapp route looks up active configurations by provider.
create index if not exists channels_provider on channels (provider) where active;
