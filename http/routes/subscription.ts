// The tenant's subscription (GET, POST /v1/subscription, POST /v1/subscription/cancel): changes by
// API keys with write permission or by owners' dashboard sessions (owner-write); admins and members read.
import { Elysia } from "elysia";
import type { BillingActor } from "../../domain/billing/audit";
import { cancel, subscribe } from "../../domain/billing/subscriptions";
import { subscriptionView } from "../../domain/billing/view";
import { CancelSubscriptionBody, SubscribeBody, SubscriptionResponse } from "../../schemas/billing";
import { accessPlugin } from "../plugins/access";
import type { AuthContext } from "../plugins/auth";
import { BODY_ERRORS, errors, KEY_ERRORS } from "../route-docs";

const TAG = { tags: ["billing"] };

function actorOf(auth: AuthContext): BillingActor {
  return { tenantId: auth.tenantId, actorType: auth.actorType, actorId: auth.actorId, ip: auth.ip, userAgent: auth.userAgent };
}

const OWNERS = { rule: "owner-write", refusal: "Only owners change the subscription" } as const;

export const subscriptionRoutes = new Elysia({ name: "routes.subscription" })
  .use(accessPlugin)
  .get("/v1/subscription", async ({ auth }) => ({ data: await subscriptionView(auth.tenantId) }), {
    access: "secret-read",
    response: { 200: SubscriptionResponse, ...errors(KEY_ERRORS) },
    detail: {
      ...TAG,
      summary: "The tenant's subscription, the limits in force and the usage of the period",
      description: "A tenant that never subscribed is on the default plan (id null, calendar-month periods). Both environments answer the same: billing belongs to the tenant; only production counts.",
    },
  })
  .post(
    "/v1/subscription",
    async ({ auth, body }) => {
      // the Stripe customer's email: the owner who subscribes (an API key has none)
      await subscribe(actorOf(auth), body.plan_id, { email: auth.session?.email ?? null });
      return { data: await subscriptionView(auth.tenantId) };
    },
    {
      access: OWNERS,
      body: SubscribeBody,
      response: { 200: SubscriptionResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 409, 502) },
      detail: {
        ...TAG,
        summary: "Subscribe, or change plan",
        description:
          "Without a live subscription: subscribes (audit subscription.created). Otherwise a dearer plan (by monthly price) is an upgrade and applies now; a cheaper one is a downgrade and applies at current_period_end (pending_plan_id until then); both write subscription.plan_changed when asked. Paid plans go through Stripe when it is configured (gateway stripe), else gateway manual. Dashboard sessions: owners only.",
      },
    },
  )
  .post(
    "/v1/subscription/cancel",
    async ({ auth, body }) => {
      await cancel(actorOf(auth), { reason: body.reason, atPeriodEnd: body.at_period_end });
      return { data: await subscriptionView(auth.tenantId) };
    },
    {
      access: OWNERS,
      body: CancelSubscriptionBody,
      response: { 200: SubscriptionResponse, ...errors(KEY_ERRORS, BODY_ERRORS, 409, 502) },
      detail: {
        ...TAG,
        summary: "Cancel the subscription",
        description:
          "at_period_end true (default): the plan holds until current_period_end, then the default plan applies; false: now. Writes subscription.cancelled {reason, cancel_at_period_end}. 409 subscription_not_cancellable without a live subscription. Dashboard sessions: owners only.",
      },
    },
  );
