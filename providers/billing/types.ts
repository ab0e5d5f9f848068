// The payment gateway interface (docs/billing.md "Adding a gateway"): what the subscription rules
// ask of a gateway, and the gateway's webhook events in the service's own terms. One file per gateway beside this one.
import type { SubscriptionStatus } from "../../schemas/billing";

/** A gateway's subscription as the service keeps it. */
export interface GatewaySubscription {
  subscriptionId: string;
  customerId: string;
  status: SubscriptionStatus;
  periodStart: Date;
  periodEnd: Date;
  cancelAtPeriodEnd: boolean;
  /** Where the customer can pay an open invoice (null: nothing to pay, or the gateway has no such page). */
  paymentUrl: string | null;
}

/** What a plan is sold as: the gateway's price. */
export interface GatewayPrice {
  priceId: string;
}

export interface SubscribeRequest {
  tenantId: string;
  tenantName: string;
  /** The tenant's customer at the gateway from an earlier subscription; null: create one. */
  customerId: string | null;
  email: string | null;
  price: GatewayPrice;
  /** Repeated calls with the same key create one customer and one subscription. */
  idempotencyKey: string;
}

export type GatewayEvent =
  | { id: string; type: string; kind: "invoice_paid"; subscriptionId: string; invoice: GatewayInvoice }
  | { id: string; type: string; kind: "payment_failed"; subscriptionId: string; invoice: GatewayInvoice }
  | { id: string; type: string; kind: "subscription_updated"; subscription: GatewaySubscription }
  | { id: string; type: string; kind: "subscription_deleted"; subscription: GatewaySubscription; reason: string }
  /** A verified event of a type (or without a subscription) the service does not act on. */
  | { id: string; type: string; kind: "ignored" };

export interface GatewayInvoice {
  id: string;
  number: string | null;
  amountCents: number;
  /** Why the payment failed, as the gateway tells it. */
  failureReason: string | null;
}

/** Thrown by an adapter when the gateway refuses or cannot be reached (the route answers 502 gateway_error). */
export class GatewayError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = "GatewayError";
  }
}

/** Thrown by parseWebhook for a delivery whose signature does not verify (bad, missing, or too old: a replay). */
export class GatewaySignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GatewaySignatureError";
  }
}

export interface PaymentGateway {
  readonly name: "stripe";
  /** Creates the customer (when the tenant has none) and its subscription to the price. */
  subscribe(req: SubscribeRequest): Promise<GatewaySubscription>;
  /** Moves the subscription to another price: prorated and invoiced now (upgrade), or from the next period on (downgrade). */
  changePrice(subscriptionId: string, price: GatewayPrice, opts: { prorateNow: boolean; idempotencyKey: string }): Promise<GatewaySubscription>;
  /** Cancels at the period end, or now. */
  cancel(subscriptionId: string, opts: { atPeriodEnd: boolean; idempotencyKey: string }): Promise<GatewaySubscription>;
  /** Verifies a webhook delivery against its raw bytes and translates it. */
  parseWebhook(rawBody: string, headers: Headers): Promise<GatewayEvent>;
}
