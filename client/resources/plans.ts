// nms.plans: the plans a tenant can subscribe to (GET /v1/plans, key or session) and, under .admin
// with the admin token, the operator's catalogue: list, create, retrieve, update (/v1/admin/plans).
import { path, type RequestOptions, type Transport } from "../transport.js";
import type { Plan, PlanCreateParams, PlanUpdateParams } from "../types.js";

export class AdminPlans {
  constructor(private readonly transport: Transport) {}

  list(opts?: RequestOptions): Promise<Plan[]> {
    return this.transport.data({ method: "GET", path: "/v1/admin/plans", admin: true }, opts);
  }

  /** 409 plan_already_exists for a taken id. */
  create(params: PlanCreateParams, opts?: RequestOptions): Promise<Plan> {
    return this.transport.data({ method: "POST", path: "/v1/admin/plans", body: params, admin: true }, opts);
  }

  retrieve(id: string, opts?: RequestOptions): Promise<Plan> {
    return this.transport.data({ method: "GET", path: path`/v1/admin/plans/${id}`, admin: true }, opts);
  }

  /** Given fields replace the stored ones; limits merge key by key (null = unlimited). */
  update(id: string, params: PlanUpdateParams, opts?: RequestOptions): Promise<Plan> {
    return this.transport.data({ method: "PUT", path: path`/v1/admin/plans/${id}`, body: params, admin: true }, opts);
  }
}

export class Plans {
  readonly admin: AdminPlans;

  constructor(private readonly transport: Transport) {
    this.admin = new AdminPlans(transport);
  }

  /** The plans on offer, cheapest first (API key or dashboard session). */
  list(opts?: RequestOptions): Promise<Plan[]> {
    return this.transport.data({ method: "GET", path: "/v1/plans" }, opts);
  }
}
