-- Dashboard identity (auth range 0150-0199): users belong to one tenant with a role, sessions and
-- magic-link tokens are stored only as SHA-256 hashes, and the disposable-domain blocklist.

create table users (
  id uuid primary key,
  tenant_id uuid not null references tenants(id) on delete cascade,
  email text not null,
  name text,
  role text not null check (role in ('owner', 'admin', 'member')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_login_at timestamptz
);
-- one dashboard identity per address: a login link or OAuth email must resolve to one tenant
create unique index users_email on users (lower(email));
create index users_tenant on users (tenant_id, created_at);

create table sessions (
  id uuid primary key,
  token_hash text not null unique,
  user_id uuid not null references users(id) on delete cascade,
  tenant_id uuid not null references tenants(id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  ip_address text,
  user_agent text
);
create index sessions_user on sessions (user_id);

create table magic_link_tokens (
  id uuid primary key,
  token_hash text not null unique,
  email text not null,
  -- null for a sign-up: the tenant is created only when the link is verified
  user_id uuid references users(id) on delete cascade,
  purpose text not null default 'login' check (purpose in ('login', 'signup', 'invite')),
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index magic_link_tokens_expiry on magic_link_tokens (expires_at);

-- domains are stored lower-case without a trailing dot; a row blocks the domain and its subdomains
create table blocked_domains (
  domain text primary key check (domain = lower(domain)),
  source text not null default 'admin' check (source in ('package', 'admin')),
  created_at timestamptz not null default now()
);
create index blocked_domains_pattern on blocked_domains (domain text_pattern_ops);

-- a package domain an admin unblocked: later seeds of a newer package version skip it
create table unblocked_domains (
  domain text primary key,
  created_at timestamptz not null default now()
);

-- which version of the disposable-email-domains package has been seeded
create table blocked_domain_seeds (
  version text primary key,
  count integer not null,
  seeded_at timestamptz not null default now()
);
