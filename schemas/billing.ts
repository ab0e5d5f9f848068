// TypeBox schemas of billing (docs/billing.md): plans (/v1/admin/plans, admin token), a tenant's
// subscription with its usage (/v1/subscription), and the subscription and quota vocabularies.
import { t, type Static } from "elysia";
import type { TSchema } from "@sinclair/typebox";

const Nullable = <T extends TSchema>(s: T, description?: string) => t.Union([s, t.Null()], description ? { description } : {});

export const PLAN_INTERVALS = ["month", "year"] as const;
export const SUBSCRIPTION_STATUSES = ["trialing", "active", "past_due", "cancelled", "expired"] as const;
export const GATEWAYS = ["manual", "stripe"] as const;
export const CHANGE_TYPES = ["upgrade", "downgrade"] as const;
/** The resources a plan limits by count (notifications are a monthly quota, requests a rate). */
export const LIMITED_RESOURCES = ["webhooks", "domains", "team_members", "subscribers"] as const;

export type PlanInterval = (typeof PLAN_INTERVALS)[number];
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export type GatewayName = (typeof GATEWAYS)[number];
export type ChangeType = (typeof CHANGE_TYPES)[number];
export type LimitedResource = (typeof LIMITED_RESOURCES)[number];

export const PlanInterval = t.Union([t.Literal("month"), t.Literal("year")], { description: "Billing period: month or year" });
export const SubscriptionStatus = t.Union([t.Literal("trialing"), t.Literal("active"), t.Literal("past_due"), t.Literal("cancelled"), t.Literal("expired")], {
  description: "trialing, active, past_due (a payment failed; the plan holds for the grace period), cancelled, expired (grace period over)",
});
export const Gateway = t.Union([t.Literal("manual"), t.Literal("stripe")], { description: "stripe, or manual when the operator bills outside the service" });

const Count = (description: string) => Nullable(t.Integer({ minimum: 0 }), description);

export const PlanLimits = t.Object(
  {
    notifications_per_month: Count("Production notifications accepted per billing period; null = unlimited"),
    api_requests_per_minute: Nullable(
      t.Integer({ minimum: 1, maximum: 10_000_000 }),
      "Requests per minute of each API key (and dashboard user); null = the service default RATE_LIMIT_PER_MINUTE",
    ),
    webhooks: Count("Production webhooks; null = unlimited (the limit of 10 per tenant still holds)"),
    domains: Count("Production sending domains; null = unlimited"),
    team_members: Nullable(t.Integer({ minimum: 1 }), "Dashboard users of the tenant; null = unlimited"),
    subscribers: Count("Production subscribers (erased ones do not count); null = unlimited"),
    retention_days: Nullable(
      t.Integer({ minimum: 1, maximum: 3650 }),
      "The longest window of each retention setting (GET/PUT /v1/settings/retention), in days; null = unlimited",
    ),
  },
  { additionalProperties: false },
);
export type PlanLimitsValue = Static<typeof PlanLimits>;

/** A plan's limits in a request: each key optional (absent = unlimited on create, unchanged on update). */
export const PlanLimitsInput = t.Partial(PlanLimits, { additionalProperties: false });

export const Plan = t.Object({
  id: t.String(),
  name: t.String(),
  price_cents: t.Integer(),
  currency: t.String({ description: "ISO 4217 code, lowercase (usd, eur, brl)" }),
  interval: PlanInterval,
  limits: PlanLimits,
  gateway_price_id: Nullable(t.String(), "The gateway's price this plan bills with (Stripe: price_...); null = never billed through a gateway"),
  default: t.Boolean({ description: "true for the plan of tenants without a subscription (BILLING_DEFAULT_PLAN)" }),
  created_at: t.String(),
  updated_at: t.String(),
});

const PLAN_EXAMPLE = {
  id: "growth",
  name: "Growth",
  price_cents: 4900,
  currency: "usd",
  interval: "month",
  limits: { notifications_per_month: 100000, api_requests_per_minute: 1200, webhooks: 5, domains: 3, team_members: 10, subscribers: 50000, retention_days: 90 },
  gateway_price_id: "price_1QGrowthMonthly",
  default: false,
  created_at: "2026-01-05T10:00:00.000Z",
  updated_at: "2026-01-05T10:00:00.000Z",
};
const FREE_EXAMPLE = {
  ...PLAN_EXAMPLE,
  id: "free",
  name: "Free",
  price_cents: 0,
  limits: { notifications_per_month: 1000, api_requests_per_minute: null, webhooks: 1, domains: 1, team_members: 2, subscribers: 500, retention_days: 30 },
  gateway_price_id: null,
  default: true,
};

const PlanId = t.String({ pattern: "^[a-z0-9][a-z0-9_-]{0,62}$", description: "Slug: lowercase letters, digits, - and _, 1-63 characters" });
const PlanName = t.String({ minLength: 1, maxLength: 100 });
const Price = t.Integer({ minimum: 0, maximum: 100_000_000, description: "Price per interval in the currency's minor unit (cents)" });
const Currency = t.String({ pattern: "^[A-Za-z]{3}$", description: "ISO 4217 code (usd, EUR ...); stored lowercase" });
const PriceId = Nullable(t.String({ minLength: 1, maxLength: 255 }), "The gateway's price id (Stripe: price_...)");

export const CreatePlanBody = t.Object(
  {
    id: PlanId,
    name: PlanName,
    price_cents: Price,
    currency: t.Optional(Currency),
    interval: t.Optional(PlanInterval),
    limits: t.Optional(PlanLimitsInput),
    gateway_price_id: t.Optional(PriceId),
  },
  {
    additionalProperties: false,
    examples: [
      {
        id: "growth",
        name: "Growth",
        price_cents: 4900,
        currency: "usd",
        interval: "month",
        limits: { notifications_per_month: 100000, api_requests_per_minute: 1200, webhooks: 5, domains: 3, team_members: 10, subscribers: 50000, retention_days: 90 },
        gateway_price_id: "price_1QGrowthMonthly",
      },
    ],
  },
);

export const UpdatePlanBody = t.Object(
  {
    name: t.Optional(PlanName),
    price_cents: t.Optional(Price),
    currency: t.Optional(Currency),
    interval: t.Optional(PlanInterval),
    limits: t.Optional(PlanLimitsInput),
    gateway_price_id: t.Optional(PriceId),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ limits: { notifications_per_month: 1000, webhooks: 1 } }, { price_cents: 5900, gateway_price_id: "price_1QGrowth2026" }],
  },
);

export const PlanParams = t.Object({ id: t.String() });
export const PlanResponse = t.Object({ data: Plan }, { examples: [{ data: PLAN_EXAMPLE }] });
export const PlanList = t.Object({ data: t.Array(Plan) }, { examples: [{ data: [FREE_EXAMPLE, PLAN_EXAMPLE] }] });

// ---------------------------------------------------------------------------------------------
// The subscription

export const Usage = t.Object({
  notifications_this_period: t.Integer({ description: "Production notifications accepted since current_period_start (sandbox never counts)" }),
  webhooks: t.Integer(),
  domains: t.Integer(),
  team_members: t.Integer(),
  subscribers: t.Integer(),
});

export const Subscription = t.Object({
  id: Nullable(t.String(), "null while the tenant has never subscribed (it is on the default plan)"),
  plan_id: t.String({ description: "The plan subscribed to (after a cancellation or expiry: the last one)" }),
  status: SubscriptionStatus,
  gateway: Gateway,
  current_period_start: t.String(),
  current_period_end: t.String(),
  cancel_at_period_end: t.Boolean(),
  pending_plan_id: Nullable(t.String(), "A downgrade waiting for current_period_end"),
  past_due_since: Nullable(t.String(), "When the first unpaid invoice failed; the plan expires grace_period_days later"),
  grace_period_days: t.Integer(),
  payment_url: Nullable(t.String(), "The gateway's page where the open invoice can be paid"),
  effective_plan_id: t.String({ description: "The plan whose limits apply now (the default plan after a cancellation or expiry)" }),
  limits: PlanLimits,
  usage: Usage,
});
export type SubscriptionView = Static<typeof Subscription>;

const SUBSCRIPTION_EXAMPLE = {
  id: "0198c3a1-aaaa-7bbb-8ccc-ddddeeeeffff",
  plan_id: "growth",
  status: "active",
  gateway: "stripe",
  current_period_start: "2026-03-05T10:00:00.000Z",
  current_period_end: "2026-04-05T10:00:00.000Z",
  cancel_at_period_end: false,
  pending_plan_id: null,
  past_due_since: null,
  grace_period_days: 7,
  payment_url: null,
  effective_plan_id: "growth",
  limits: PLAN_EXAMPLE.limits,
  usage: { notifications_this_period: 81234, webhooks: 2, domains: 1, team_members: 4, subscribers: 12040 },
};

export const SubscriptionResponse = t.Object({ data: Subscription }, { examples: [{ data: SUBSCRIPTION_EXAMPLE }] });

export const SubscribeBody = t.Object(
  { plan_id: t.String({ minLength: 1, maxLength: 63, description: "The plan to subscribe or change to" }) },
  { additionalProperties: false, examples: [{ plan_id: "growth" }] },
);

export const CancelSubscriptionBody = t.Object(
  {
    reason: t.Optional(t.String({ minLength: 1, maxLength: 500, description: "Why (kept in the audit log); default requested" })),
    at_period_end: t.Optional(t.Boolean({ description: "true (default): the plan holds until current_period_end; false: ends now" })),
  },
  { additionalProperties: false, examples: [{ reason: "moving to another provider", at_period_end: true }, { at_period_end: false }] },
);

/** What POST /webhooks/billing/stripe answers once the signature checked out. */
export const GatewayWebhookResponse = t.Object(
  {
    received: t.Boolean(),
    duplicate: t.Boolean({ description: "true when this event id was applied before (nothing changed)" }),
    applied: t.Boolean({ description: "false for an event type or subscription the service does not handle" }),
  },
  { examples: [{ received: true, duplicate: false, applied: true }] },
);

/** The body of POST /webhooks/billing/stripe (Stripe's event object; verified against the raw bytes). */
export const StripeEventBody = t.Object(
  {
    id: t.String({ description: "evt_..." }),
    type: t.String({ description: "invoice.paid, invoice.payment_failed, customer.subscription.updated, customer.subscription.deleted" }),
    data: t.Object({ object: t.Record(t.String(), t.Unknown()) }, { additionalProperties: true }),
  },
  {
    additionalProperties: true,
    examples: [
      {
        id: "evt_1QFailed",
        object: "event",
        type: "invoice.payment_failed",
        created: 1772704800,
        data: { object: { id: "in_1QInvoice", object: "invoice", number: "NMS-0042", amount_due: 4900, parent: { subscription_details: { subscription: "sub_1QGrowth" } } } },
      },
    ],
  },
);
