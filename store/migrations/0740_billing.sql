-- Billing (docs/billing.md): plans as data, one subscription per tenant, the gateway events already
-- applied (replays are no-ops), and the quota alerts sent once per tenant and period.

-- A plan is operator data behind the admin token. Limits: null = unlimited, except
-- api_requests_per_minute, where null = the service's RATE_LIMIT_PER_MINUTE (every request is limited).
-- version grows on every change, so quota counters made under the old limits are seeded anew.
create table plans (
  id text primary key check (id ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  name text not null,
  price_cents bigint not null check (price_cents >= 0),
  currency text not null check (currency ~ '^[a-z]{3}$'),
  interval text not null check (interval in ('month', 'year')),
  notifications_per_month bigint check (notifications_per_month >= 0),
  api_requests_per_minute integer check (api_requests_per_minute > 0),
  webhooks integer check (webhooks >= 0),
  domains integer check (domains >= 0),
  team_members integer check (team_members >= 1),
  subscribers bigint check (subscribers >= 0),
  -- the gateway's price this plan bills with (Stripe: price_...); null = not sold through a gateway
  gateway_price_id text,
  version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- The default plan of a fresh install: free and unlimited, so a self-hosted service limits nothing
-- until its operator says so (PUT /v1/admin/plans/free). BILLING_DEFAULT_PLAN may name another.
insert into plans (id, name, price_cents, currency, interval) values ('free', 'Free', 0, 'usd', 'month')
on conflict (id) do nothing;

-- A tenant without a row is on the default plan (calendar-month periods, gateway manual).
-- revision grows on every change of the row, so quota counters of the old state are not reused.
create table subscriptions (
  tenant_id uuid primary key references tenants(id) on delete cascade,
  id uuid not null unique,
  plan_id text not null references plans(id),
  -- a downgrade waits here until current_period_end
  pending_plan_id text references plans(id),
  status text not null check (status in ('trialing', 'active', 'past_due', 'cancelled', 'expired')),
  gateway text not null check (gateway in ('manual', 'stripe')),
  gateway_customer_id text,
  gateway_subscription_id text unique,
  -- where the periods are counted from (day of month kept: Jan 31 -> Feb 28 -> Mar 31)
  anchor_at timestamptz not null,
  current_period_start timestamptz not null,
  current_period_end timestamptz not null,
  cancel_at_period_end boolean not null default false,
  past_due_since timestamptz,
  cancelled_at timestamptz,
  expired_at timestamptz,
  payment_url text,
  revision integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- the expiry cron's scan
create index subscriptions_past_due on subscriptions (past_due_since) where status = 'past_due';
-- the manual period roll of the cron
create index subscriptions_period_end on subscriptions (current_period_end) where status in ('active', 'trialing', 'past_due');

-- Gateway events applied, by the gateway's own event id: a replayed delivery changes nothing.
create table billing_gateway_events (
  gateway text not null,
  event_id text not null,
  type text not null,
  tenant_id uuid references tenants(id) on delete cascade,
  received_at timestamptz not null default now(),
  primary key (gateway, event_id)
);

-- quota.warning (80 %) and quota.exceeded (100 %): at most one of each per tenant and period.
create table billing_quota_alerts (
  tenant_id uuid not null references tenants(id) on delete cascade,
  period_start timestamptz not null,
  kind text not null check (kind in ('warning', 'exceeded')),
  created_at timestamptz not null default now(),
  primary key (tenant_id, period_start, kind)
);
