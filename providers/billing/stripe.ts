// The Stripe gateway: customers and subscriptions through the `stripe` package (its API shapes, any
// base URL so tests run a local fake), and Stripe's signed webhook events verified by the package's own verifier.
import Stripe from "stripe";
import type { SubscriptionStatus } from "../../schemas/billing";
import { GatewayError, GatewaySignatureError, type GatewayEvent, type GatewayInvoice, type GatewaySubscription, type PaymentGateway } from "./types";

export interface StripeSettings {
  secretKey: string;
  /** whsec_...: the signing secret of the webhook endpoint (Stripe Dashboard or `stripe listen`). */
  webhookSecret: string | undefined;
  /** https://api.stripe.com by default; a local fake in tests. */
  apiBase?: string;
  /** Seconds a signed event stays acceptable (Stripe's default 300): an older signature is a replay. */
  toleranceSeconds?: number;
}

/** Stripe's statuses in the service's vocabulary (an incomplete first payment is an unpaid one: past_due). */
export function statusFromStripe(s: string): SubscriptionStatus {
  switch (s) {
    case "trialing":
      return "trialing";
    case "active":
      return "active";
    case "past_due":
    case "unpaid":
    case "incomplete":
    case "paused":
      return "past_due";
    case "incomplete_expired":
      return "expired";
    default:
      return "cancelled"; // canceled
  }
}

const at = (seconds: unknown) => new Date(Number(seconds) * 1000);
const idOf = (v: unknown): string | null => (typeof v === "string" ? v : v && typeof v === "object" && typeof (v as any).id === "string" ? (v as any).id : null);

/** The subscription in our terms; the period sits on the item since API 2025-03-31 (on the subscription before). */
export function subscriptionFromStripe(sub: any): GatewaySubscription {
  const item = sub?.items?.data?.[0] ?? {};
  const start = item.current_period_start ?? sub.current_period_start;
  const end = item.current_period_end ?? sub.current_period_end;
  const invoice = sub.latest_invoice && typeof sub.latest_invoice === "object" ? sub.latest_invoice : null;
  const open = invoice && invoice.status === "open" && typeof invoice.hosted_invoice_url === "string";
  return {
    subscriptionId: String(sub.id),
    customerId: idOf(sub.customer) ?? "",
    status: statusFromStripe(String(sub.status)),
    periodStart: at(start),
    periodEnd: at(end),
    cancelAtPeriodEnd: sub.cancel_at_period_end === true,
    paymentUrl: open ? invoice.hosted_invoice_url : null,
  };
}

/** The invoice's subscription: under parent.subscription_details since API 2025-03-31 (top level before). */
function invoiceSubscription(inv: any): string | null {
  return idOf(inv?.parent?.subscription_details?.subscription) ?? idOf(inv?.subscription);
}

function invoiceFromStripe(inv: any): GatewayInvoice {
  const fin = inv?.last_finalization_error;
  const failure = fin ? (fin.message ?? fin.code ?? null) : null;
  return {
    id: String(inv.id),
    number: typeof inv.number === "string" ? inv.number : null,
    amountCents: Number(inv.amount_due ?? inv.total ?? 0),
    failureReason: failure ?? (inv.attempt_count ? `payment attempt ${inv.attempt_count} failed` : null),
  };
}

export function eventFromStripe(event: any): GatewayEvent {
  const base = { id: String(event.id), type: String(event.type) };
  const obj = event?.data?.object ?? {};
  switch (event.type) {
    case "invoice.paid":
    case "invoice.payment_failed": {
      const subscriptionId = invoiceSubscription(obj);
      if (!subscriptionId) return { ...base, kind: "ignored" }; // a one-off invoice
      return { ...base, kind: event.type === "invoice.paid" ? "invoice_paid" : "payment_failed", subscriptionId, invoice: invoiceFromStripe(obj) };
    }
    case "customer.subscription.updated":
      return { ...base, kind: "subscription_updated", subscription: subscriptionFromStripe(obj) };
    case "customer.subscription.deleted":
      return { ...base, kind: "subscription_deleted", subscription: subscriptionFromStripe(obj), reason: obj?.cancellation_details?.reason ?? "cancelled_at_gateway" };
    default:
      return { ...base, kind: "ignored" };
  }
}

function clientFor(s: StripeSettings): Stripe {
  const opts: Record<string, unknown> = { maxNetworkRetries: 2, timeout: 20_000, appInfo: { name: "nms" } };
  if (s.apiBase) {
    const u = new URL(s.apiBase);
    opts.host = u.hostname;
    opts.port = u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
    opts.protocol = u.protocol.replace(":", "");
  }
  return new Stripe(s.secretKey, opts as any);
}

async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err: any) {
    const status = typeof err?.statusCode === "number" ? err.statusCode : null;
    throw new GatewayError(`Stripe ${what} failed${status ? ` (${status})` : ""}: ${err?.message ?? String(err)}`, status);
  }
}

export function createStripeGateway(s: StripeSettings): PaymentGateway {
  const stripe = clientFor(s);
  return {
    name: "stripe",
    async subscribe(req) {
      const customerId =
        req.customerId ??
        (
          await call("customer creation", () =>
            stripe.customers.create(
              { name: req.tenantName, ...(req.email ? { email: req.email } : {}), metadata: { tenant_id: req.tenantId } },
              { idempotencyKey: `${req.idempotencyKey}:customer` },
            ),
          )
        ).id;
      const sub = await call("subscription creation", () =>
        stripe.subscriptions.create(
          {
            customer: customerId,
            items: [{ price: req.price.priceId }],
            // an unpaid first invoice leaves the subscription `incomplete` with a page to pay it, rather than failing the call
            payment_behavior: "allow_incomplete",
            metadata: { tenant_id: req.tenantId },
            expand: ["latest_invoice"],
          },
          { idempotencyKey: `${req.idempotencyKey}:subscription` },
        ),
      );
      return subscriptionFromStripe(sub);
    },
    async changePrice(subscriptionId, price, opts) {
      const current: any = await call("subscription lookup", () => stripe.subscriptions.retrieve(subscriptionId));
      const itemId = current?.items?.data?.[0]?.id;
      if (!itemId) throw new GatewayError(`Stripe subscription ${subscriptionId} has no item to change`, null);
      const sub = await call("plan change", () =>
        stripe.subscriptions.update(
          subscriptionId,
          {
            items: [{ id: itemId, price: price.priceId }],
            // an upgrade is charged now for the rest of the period; a downgrade bills from the next period
            proration_behavior: opts.prorateNow ? "always_invoice" : "none",
            expand: ["latest_invoice"],
          },
          { idempotencyKey: opts.idempotencyKey },
        ),
      );
      return subscriptionFromStripe(sub);
    },
    async cancel(subscriptionId, opts) {
      const sub = opts.atPeriodEnd
        ? await call("cancellation", () => stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true }, { idempotencyKey: opts.idempotencyKey }))
        : await call("cancellation", () => stripe.subscriptions.cancel(subscriptionId, {}, { idempotencyKey: opts.idempotencyKey }));
      return subscriptionFromStripe(sub);
    },
    async parseWebhook(rawBody, headers) {
      if (!s.webhookSecret) throw new GatewaySignatureError("STRIPE_WEBHOOK_SECRET is not set: Stripe events cannot be verified");
      const signature = headers.get("stripe-signature");
      if (!signature) throw new GatewaySignatureError("Missing Stripe-Signature header");
      let event: unknown;
      try {
        // Bun loads the package's worker build, whose Web Crypto verifier is the async one
        event = await stripe.webhooks.constructEventAsync(rawBody, signature, s.webhookSecret, s.toleranceSeconds ?? 300);
      } catch (err: any) {
        if (err?.type === "StripeSignatureVerificationError") throw new GatewaySignatureError(err.message.split("\n")[0]);
        throw new GatewaySignatureError(`The signed payload is not a Stripe event: ${err?.message ?? String(err)}`);
      }
      return eventFromStripe(event);
    },
  };
}
