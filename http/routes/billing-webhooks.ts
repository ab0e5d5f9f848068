// POST /webhooks/billing/stripe: Stripe's signed events (invoice.paid, invoice.payment_failed,
// customer.subscription.updated and .deleted). No API key: the Stripe-Signature header is the auth.
import { Elysia } from "elysia";
import { receiveStripeEvent } from "../../domain/billing/gateway-events";
import { GatewayWebhookResponse, StripeEventBody } from "../../schemas/billing";
import { accessPlugin } from "../plugins/access";
import { errors } from "../route-docs";

export const billingWebhookRoutes = new Elysia({ name: "routes.billing-webhooks" }).use(accessPlugin).post(
  "/webhooks/billing/stripe",
  async ({ request }) => {
    const r = await receiveStripeEvent((request as { __rawBody?: string }).__rawBody ?? "", request.headers);
    return { received: true, duplicate: r.duplicate, applied: r.applied };
  },
  {
    access: "public", // the Stripe-Signature header is the credential
    parse: ["application/json"], // for the OpenAPI document; the global JSON parser keeps the raw body
    body: StripeEventBody,
    response: { 200: GatewayWebhookResponse, ...errors(400, 401, 413, 422, 503) },
    detail: {
      summary: "Stripe webhook events (Stripe-Signature, verified by the stripe package; at most 5 minutes old)",
      description: "Each event id applies once: a repeated delivery answers duplicate true and changes nothing. Point a Stripe webhook endpoint here with those four event types and set STRIPE_WEBHOOK_SECRET to its signing secret.",
      tags: ["provider-callbacks"],
    },
  },
);
