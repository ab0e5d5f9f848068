-- Auth range (0100-0199): allowed origins for publishable keys, and the indexes the API key,
-- allowed-origin and audit-log queries of the auth module rely on.

-- Origins are scoped like every tenant record (tenant, environment); the SPEC cap of 20 is
-- counted over the whole tenant.
create table allowed_origins (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null check (environment in ('production', 'sandbox')),
  origin text not null,
  created_at timestamptz not null default now(),
  unique (tenant_id, environment, origin)
);
-- CORS preflight carries no credentials, so it asks "is this origin allowed anywhere?"
create index allowed_origins_origin on allowed_origins (origin);

create index audit_logs_tenant_resource on audit_logs (tenant_id, resource_id, inserted_at desc);
create index audit_logs_tenant_actor on audit_logs (tenant_id, actor_id, inserted_at desc);
