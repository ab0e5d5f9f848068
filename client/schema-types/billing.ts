// Generated from schemas/billing.ts by scripts/generate-client-types.ts: do not edit. The types
// Static<typeof Schema> gives for each TypeBox schema the server validates with, so @nms/client needs neither.

export type CancelSubscriptionBody = {
  /** Why (kept in the audit log); default requested */
  reason?: string;
  /** true (default): the plan holds until current_period_end; false: ends now */
  at_period_end?: boolean;
};

export const CHANGE_TYPES = ["upgrade","downgrade"] as const;

export type CreatePlanBody = {
  /** Slug: lowercase letters, digits, - and _, 1-63 characters */
  id: string;
  name: string;
  /** Price per interval in the currency's minor unit (cents) */
  price_cents: number;
  /** ISO 4217 code (usd, EUR ...); stored lowercase */
  currency?: string;
  /** Billing period: month or year */
  interval?: "month" | "year";
  limits?: {
    /** Production notifications accepted per billing period; null = unlimited */
    notifications_per_month?: number | null;
    /** Requests per minute of each API key (and dashboard user); null = the service default RATE_LIMIT_PER_MINUTE */
    api_requests_per_minute?: number | null;
    /** Production webhooks; null = unlimited (the limit of 10 per tenant still holds) */
    webhooks?: number | null;
    /** Production sending domains; null = unlimited */
    domains?: number | null;
    /** Dashboard users of the tenant; null = unlimited */
    team_members?: number | null;
    /** Production subscribers (erased ones do not count); null = unlimited */
    subscribers?: number | null;
    /** The longest window of each retention setting (GET/PUT /v1/settings/retention), in days; null = unlimited */
    retention_days?: number | null;
  };
  /** The gateway's price id (Stripe: price_...) */
  gateway_price_id?: string | null;
};

/** stripe, or manual when the operator bills outside the service */
export type Gateway = "manual" | "stripe";

export const GATEWAYS = ["manual","stripe"] as const;

export type GatewayWebhookResponse = {
  received: boolean;
  /** true when this event id was applied before (nothing changed) */
  duplicate: boolean;
  /** false for an event type or subscription the service does not handle */
  applied: boolean;
};

export const LIMITED_RESOURCES = ["webhooks","domains","team_members","subscribers"] as const;

export type Plan = {
  id: string;
  name: string;
  price_cents: number;
  /** ISO 4217 code, lowercase (usd, eur, brl) */
  currency: string;
  /** Billing period: month or year */
  interval: "month" | "year";
  limits: {
    /** Production notifications accepted per billing period; null = unlimited */
    notifications_per_month: number | null;
    /** Requests per minute of each API key (and dashboard user); null = the service default RATE_LIMIT_PER_MINUTE */
    api_requests_per_minute: number | null;
    /** Production webhooks; null = unlimited (the limit of 10 per tenant still holds) */
    webhooks: number | null;
    /** Production sending domains; null = unlimited */
    domains: number | null;
    /** Dashboard users of the tenant; null = unlimited */
    team_members: number | null;
    /** Production subscribers (erased ones do not count); null = unlimited */
    subscribers: number | null;
    /** The longest window of each retention setting (GET/PUT /v1/settings/retention), in days; null = unlimited */
    retention_days: number | null;
  };
  /** The gateway's price this plan bills with (Stripe: price_...); null = never billed through a gateway */
  gateway_price_id: string | null;
  /** true for the plan of tenants without a subscription (BILLING_DEFAULT_PLAN) */
  default: boolean;
  created_at: string;
  updated_at: string;
};

export const PLAN_INTERVALS = ["month","year"] as const;

/** Billing period: month or year */
export type PlanInterval = "month" | "year";

export type PlanLimits = {
  /** Production notifications accepted per billing period; null = unlimited */
  notifications_per_month: number | null;
  /** Requests per minute of each API key (and dashboard user); null = the service default RATE_LIMIT_PER_MINUTE */
  api_requests_per_minute: number | null;
  /** Production webhooks; null = unlimited (the limit of 10 per tenant still holds) */
  webhooks: number | null;
  /** Production sending domains; null = unlimited */
  domains: number | null;
  /** Dashboard users of the tenant; null = unlimited */
  team_members: number | null;
  /** Production subscribers (erased ones do not count); null = unlimited */
  subscribers: number | null;
  /** The longest window of each retention setting (GET/PUT /v1/settings/retention), in days; null = unlimited */
  retention_days: number | null;
};

export type PlanLimitsInput = {
  /** Production notifications accepted per billing period; null = unlimited */
  notifications_per_month?: number | null;
  /** Requests per minute of each API key (and dashboard user); null = the service default RATE_LIMIT_PER_MINUTE */
  api_requests_per_minute?: number | null;
  /** Production webhooks; null = unlimited (the limit of 10 per tenant still holds) */
  webhooks?: number | null;
  /** Production sending domains; null = unlimited */
  domains?: number | null;
  /** Dashboard users of the tenant; null = unlimited */
  team_members?: number | null;
  /** Production subscribers (erased ones do not count); null = unlimited */
  subscribers?: number | null;
  /** The longest window of each retention setting (GET/PUT /v1/settings/retention), in days; null = unlimited */
  retention_days?: number | null;
};

export type PlanList = {
  data: {
    id: string;
    name: string;
    price_cents: number;
    /** ISO 4217 code, lowercase (usd, eur, brl) */
    currency: string;
    /** Billing period: month or year */
    interval: "month" | "year";
    limits: {
      /** Production notifications accepted per billing period; null = unlimited */
      notifications_per_month: number | null;
      /** Requests per minute of each API key (and dashboard user); null = the service default RATE_LIMIT_PER_MINUTE */
      api_requests_per_minute: number | null;
      /** Production webhooks; null = unlimited (the limit of 10 per tenant still holds) */
      webhooks: number | null;
      /** Production sending domains; null = unlimited */
      domains: number | null;
      /** Dashboard users of the tenant; null = unlimited */
      team_members: number | null;
      /** Production subscribers (erased ones do not count); null = unlimited */
      subscribers: number | null;
      /** The longest window of each retention setting (GET/PUT /v1/settings/retention), in days; null = unlimited */
      retention_days: number | null;
    };
    /** The gateway's price this plan bills with (Stripe: price_...); null = never billed through a gateway */
    gateway_price_id: string | null;
    /** true for the plan of tenants without a subscription (BILLING_DEFAULT_PLAN) */
    default: boolean;
    created_at: string;
    updated_at: string;
  }[];
};

export type PlanParams = {
  id: string;
};

export type PlanResponse = {
  data: {
    id: string;
    name: string;
    price_cents: number;
    /** ISO 4217 code, lowercase (usd, eur, brl) */
    currency: string;
    /** Billing period: month or year */
    interval: "month" | "year";
    limits: {
      /** Production notifications accepted per billing period; null = unlimited */
      notifications_per_month: number | null;
      /** Requests per minute of each API key (and dashboard user); null = the service default RATE_LIMIT_PER_MINUTE */
      api_requests_per_minute: number | null;
      /** Production webhooks; null = unlimited (the limit of 10 per tenant still holds) */
      webhooks: number | null;
      /** Production sending domains; null = unlimited */
      domains: number | null;
      /** Dashboard users of the tenant; null = unlimited */
      team_members: number | null;
      /** Production subscribers (erased ones do not count); null = unlimited */
      subscribers: number | null;
      /** The longest window of each retention setting (GET/PUT /v1/settings/retention), in days; null = unlimited */
      retention_days: number | null;
    };
    /** The gateway's price this plan bills with (Stripe: price_...); null = never billed through a gateway */
    gateway_price_id: string | null;
    /** true for the plan of tenants without a subscription (BILLING_DEFAULT_PLAN) */
    default: boolean;
    created_at: string;
    updated_at: string;
  };
};

export type StripeEventBody = {
  /** evt_... */
  id: string;
  /** invoice.paid, invoice.payment_failed, customer.subscription.updated, customer.subscription.deleted */
  type: string;
  data: {
    object: { [key: string]: unknown };
  };
};

export type SubscribeBody = {
  /** The plan to subscribe or change to */
  plan_id: string;
};

export type Subscription = {
  /** null while the tenant has never subscribed (it is on the default plan) */
  id: string | null;
  /** The plan subscribed to (after a cancellation or expiry: the last one) */
  plan_id: string;
  /** trialing, active, past_due (a payment failed; the plan holds for the grace period), cancelled, expired (grace period over) */
  status: "trialing" | "active" | "past_due" | "cancelled" | "expired";
  /** stripe, or manual when the operator bills outside the service */
  gateway: "manual" | "stripe";
  current_period_start: string;
  current_period_end: string;
  cancel_at_period_end: boolean;
  /** A downgrade waiting for current_period_end */
  pending_plan_id: string | null;
  /** When the first unpaid invoice failed; the plan expires grace_period_days later */
  past_due_since: string | null;
  grace_period_days: number;
  /** The gateway's page where the open invoice can be paid */
  payment_url: string | null;
  /** The plan whose limits apply now (the default plan after a cancellation or expiry) */
  effective_plan_id: string;
  limits: {
    /** Production notifications accepted per billing period; null = unlimited */
    notifications_per_month: number | null;
    /** Requests per minute of each API key (and dashboard user); null = the service default RATE_LIMIT_PER_MINUTE */
    api_requests_per_minute: number | null;
    /** Production webhooks; null = unlimited (the limit of 10 per tenant still holds) */
    webhooks: number | null;
    /** Production sending domains; null = unlimited */
    domains: number | null;
    /** Dashboard users of the tenant; null = unlimited */
    team_members: number | null;
    /** Production subscribers (erased ones do not count); null = unlimited */
    subscribers: number | null;
    /** The longest window of each retention setting (GET/PUT /v1/settings/retention), in days; null = unlimited */
    retention_days: number | null;
  };
  usage: {
    /** Production notifications accepted since current_period_start (sandbox never counts) */
    notifications_this_period: number;
    webhooks: number;
    domains: number;
    team_members: number;
    subscribers: number;
  };
};

export const SUBSCRIPTION_STATUSES = ["trialing","active","past_due","cancelled","expired"] as const;

export type SubscriptionResponse = {
  data: {
    /** null while the tenant has never subscribed (it is on the default plan) */
    id: string | null;
    /** The plan subscribed to (after a cancellation or expiry: the last one) */
    plan_id: string;
    /** trialing, active, past_due (a payment failed; the plan holds for the grace period), cancelled, expired (grace period over) */
    status: "trialing" | "active" | "past_due" | "cancelled" | "expired";
    /** stripe, or manual when the operator bills outside the service */
    gateway: "manual" | "stripe";
    current_period_start: string;
    current_period_end: string;
    cancel_at_period_end: boolean;
    /** A downgrade waiting for current_period_end */
    pending_plan_id: string | null;
    /** When the first unpaid invoice failed; the plan expires grace_period_days later */
    past_due_since: string | null;
    grace_period_days: number;
    /** The gateway's page where the open invoice can be paid */
    payment_url: string | null;
    /** The plan whose limits apply now (the default plan after a cancellation or expiry) */
    effective_plan_id: string;
    limits: {
      /** Production notifications accepted per billing period; null = unlimited */
      notifications_per_month: number | null;
      /** Requests per minute of each API key (and dashboard user); null = the service default RATE_LIMIT_PER_MINUTE */
      api_requests_per_minute: number | null;
      /** Production webhooks; null = unlimited (the limit of 10 per tenant still holds) */
      webhooks: number | null;
      /** Production sending domains; null = unlimited */
      domains: number | null;
      /** Dashboard users of the tenant; null = unlimited */
      team_members: number | null;
      /** Production subscribers (erased ones do not count); null = unlimited */
      subscribers: number | null;
      /** The longest window of each retention setting (GET/PUT /v1/settings/retention), in days; null = unlimited */
      retention_days: number | null;
    };
    usage: {
      /** Production notifications accepted since current_period_start (sandbox never counts) */
      notifications_this_period: number;
      webhooks: number;
      domains: number;
      team_members: number;
      subscribers: number;
    };
  };
};

/** trialing, active, past_due (a payment failed; the plan holds for the grace period), cancelled, expired (grace period over) */
export type SubscriptionStatus = "trialing" | "active" | "past_due" | "cancelled" | "expired";

export type UpdatePlanBody = {
  name?: string;
  /** Price per interval in the currency's minor unit (cents) */
  price_cents?: number;
  /** ISO 4217 code (usd, EUR ...); stored lowercase */
  currency?: string;
  /** Billing period: month or year */
  interval?: "month" | "year";
  limits?: {
    /** Production notifications accepted per billing period; null = unlimited */
    notifications_per_month?: number | null;
    /** Requests per minute of each API key (and dashboard user); null = the service default RATE_LIMIT_PER_MINUTE */
    api_requests_per_minute?: number | null;
    /** Production webhooks; null = unlimited (the limit of 10 per tenant still holds) */
    webhooks?: number | null;
    /** Production sending domains; null = unlimited */
    domains?: number | null;
    /** Dashboard users of the tenant; null = unlimited */
    team_members?: number | null;
    /** Production subscribers (erased ones do not count); null = unlimited */
    subscribers?: number | null;
    /** The longest window of each retention setting (GET/PUT /v1/settings/retention), in days; null = unlimited */
    retention_days?: number | null;
  };
  /** The gateway's price id (Stripe: price_...) */
  gateway_price_id?: string | null;
};

export type Usage = {
  /** Production notifications accepted since current_period_start (sandbox never counts) */
  notifications_this_period: number;
  webhooks: number;
  domains: number;
  team_members: number;
  subscribers: number;
};
