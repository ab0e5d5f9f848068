// nms.subscription: the tenant's subscription with its limits and usage (GET /v1/subscription),
// subscribing or changing plan (an upgrade now, a downgrade at the period end) and cancelling.
import type { RequestOptions, Transport } from "../transport.js";
import type { Subscription as SubscriptionRecord, SubscriptionCancelParams } from "../types.js";

export class Subscription {
  constructor(private readonly transport: Transport) {}

  retrieve(opts?: RequestOptions): Promise<SubscriptionRecord> {
    return this.transport.data({ method: "GET", path: "/v1/subscription" }, opts);
  }

  /** Subscribes, or changes to `planId` (409 plan_already_subscribed when nothing would change). */
  change(planId: string, opts?: RequestOptions): Promise<SubscriptionRecord> {
    return this.transport.data({ method: "POST", path: "/v1/subscription", body: { plan_id: planId } }, opts);
  }

  /** At the period end unless `at_period_end: false`. */
  cancel(params: SubscriptionCancelParams = {}, opts?: RequestOptions): Promise<SubscriptionRecord> {
    return this.transport.data({ method: "POST", path: "/v1/subscription/cancel", body: params }, opts);
  }
}
