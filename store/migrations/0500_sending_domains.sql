-- Sending domains (issue 12, range 0500-0549): a tenant's domains with their verification token
-- and DKIM key pair, the history of their health checks, and the alerts those checks raise.

-- One row per (tenant, environment, domain). The DKIM private key is sealed like channel
-- credentials (store/cipher.ts, bound to the row by its additional data); the public key is the
-- base64 SPKI DER published as p= of `<dkim_selector>._domainkey.<domain>`.
create table sending_domains (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null check (environment in ('production', 'sandbox')),
  domain text not null,
  status text not null default 'pending' check (status in ('pending', 'verified')),
  verification_token text not null,
  verification_error text,
  verified_at timestamptz,
  dkim_selector text not null,
  dkim_public_key text not null,
  dkim_private_key_enc text not null,
  block_on_failure boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (tenant_id, environment, domain)
);
create index sending_domains_list on sending_domains (tenant_id, environment, id desc);
-- the health cron walks verified domains in id order
create index sending_domains_verified on sending_domains (id) where status = 'verified';

-- Every health check of a domain. `tick` is the cron tick (its scheduled time) that asked for it:
-- unique per domain, so a check message delivered twice, or a tick fired twice, checks once.
-- Forced checks and the check made at verification have no tick.
create table domain_health_checks (
  id uuid primary key,
  domain_id uuid not null references sending_domains(id) on delete cascade,
  tenant_id uuid not null,
  tick text,
  trigger text not null check (trigger in ('cron', 'forced', 'verify', 'read')),
  spf jsonb not null,
  dkim jsonb not null,
  dmarc jsonb not null,
  checked_at timestamptz not null default now(),
  unique (domain_id, tick)
);
create index domain_health_checks_latest on domain_health_checks (domain_id, checked_at desc, id desc);

-- An alert is raised when a check (spf, dkim, dmarc) goes from pass to fail or missing, and
-- resolved when it passes again; at most one open alert per domain and check.
create table domain_alerts (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  environment text not null,
  domain_id uuid not null references sending_domains(id) on delete cascade,
  domain text not null,
  check_name text not null check (check_name in ('spf', 'dkim', 'dmarc')),
  status text not null check (status in ('fail', 'missing')),
  message text not null,
  created_at timestamptz not null default now(),
  resolved_at timestamptz
);
create unique index domain_alerts_open on domain_alerts (domain_id, check_name) where resolved_at is null;
-- GET /v1/domains/alerts: open first, newest first
create index domain_alerts_list on domain_alerts (tenant_id, environment, (resolved_at is null) desc, id desc);
